import Foundation

/// The command line: `streams-demo [--store PATH | --in-memory] [--duration SECONDS] [--interval SECONDS] [--plain]`.
struct DemoOptions {
    var storePath = "streams-demo.sqlite"
    var inMemory = false
    var duration: Double = 10
    var interval: Double = 0.25
    var plain = false

    static let usage = """
        streams-demo: a live board kept in sync with a SQLite store through Streams.

        A background context inserts, renames, moves and deletes items on a timer; the view
        model follows through changesPublisher + applyingChanges, with backpressure, and the
        board is redrawn on each difference with what changed highlighted.

        usage: swift run streams-demo [options]

          --store PATH        the SQLite file to create or open (default: streams-demo.sqlite)
          --in-memory         use an in-memory store instead of a file
          --duration SECONDS  how long to run (default: 10; Ctrl-C stops early)
          --interval SECONDS  time between background changes (default: 0.25)
          --plain             print one line per difference instead of redrawing
                              (the default when the output is not a terminal)
          --help              show this text
        """

    /// Parses `arguments` (without the program name); returns an error message for bad input.
    static func parse(_ arguments: [String]) -> Result<DemoOptions?, DemoError> {
        var options = DemoOptions()
        var remaining = arguments[...]
        func number(after flag: String) -> Result<Double, DemoError> {
            guard let text = remaining.popFirst() else { return .failure(.usage("\(flag) needs a number of seconds")) }
            guard let value = Double(text), value > 0, value.isFinite else {
                return .failure(.usage("\(flag) needs a positive number of seconds, not '\(text)'"))
            }
            return .success(value)
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h": return .success(nil)
            case "--in-memory": options.inMemory = true
            case "--plain": options.plain = true
            case "--store":
                guard let path = remaining.popFirst(), !path.isEmpty else { return .failure(.usage("--store needs a file path")) }
                options.storePath = path
            case "--duration":
                switch number(after: argument) {
                case .success(let value): options.duration = value
                case .failure(let error): return .failure(error)
                }
            case "--interval":
                switch number(after: argument) {
                case .success(let value): options.interval = value
                case .failure(let error): return .failure(error)
                }
            default:
                return .failure(.usage("unknown option '\(argument)'"))
            }
        }
        return .success(options)
    }
}

/// What can stop the demo, each with the message a person reads.
enum DemoError: Error, CustomStringConvertible {
    case usage(String)
    case store(String)

    var description: String {
        switch self {
        case .usage(let message): "streams-demo: \(message) (see --help)"
        case .store(let message): "streams-demo: \(message)"
        }
    }
}
