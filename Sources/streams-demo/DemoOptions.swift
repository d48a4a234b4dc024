import Foundation
import ObjectGraph

/// The command line: `streams-demo [--store PATH | --in-memory | --postgresql URL] [--name NAME]
/// [--duration SECONDS] [--interval SECONDS] [--plain] [--check]`.
struct DemoOptions {
    var storePath = "streams-demo.sqlite"
    var inMemory = false
    /// A libpq connection string: the board lives in that PostgreSQL database, shared with every
    /// other process that opens it.
    var postgreSQL: String?
    /// What this process's edits are labelled with; set for PostgreSQL, so that each board tells
    /// the other process's items from its own.
    var name: String?
    /// Runs the two-process self-check instead of the board.
    var check = false
    /// The run this process is the second process of (internal: the self-check starts it).
    var checkPeer: String?
    var duration: Double = 10
    var interval: Double = 0.25
    var plain = false

    static let usage = """
        streams-demo: a live board kept in sync with a SQLite store through Streams.

        A background context inserts, renames, moves and deletes items on a timer; the view
        model follows through changesPublisher + applyingChanges, with backpressure, and the
        board is redrawn on each difference with what changed highlighted.

        With --postgresql, the board lives in a PostgreSQL database: start the demo in two
        terminals on the same database and each board shows the other's edits live.

        usage: swift run streams-demo [options]

          --store PATH        the SQLite file to create or open (default: streams-demo.sqlite)
          --in-memory         use an in-memory store instead of a file
          --postgresql URL    use the PostgreSQL database at URL, a libpq connection string
                              (e.g. "$OBJECTGRAPH_POSTGRES_URL" from .ci/postgres start)
          --name NAME         label this process's items with NAME (default with
                              --postgresql: the process ID)
          --check             run a self-check instead: start a second process on the same
                              store, edit from each side, exit 0 once each has seen the
                              other's edits arrive live (1 if not within 30 seconds)
          --duration SECONDS  how long to run (default: 10; Ctrl-C stops early)
          --interval SECONDS  time between background changes (default: 0.25)
          --plain             print one line per difference instead of redrawing
                              (the default when the output is not a terminal)
          --help              show this text
        """

    /// What each option that takes text needs, for its error message.
    private static let valueNames = [
        "--store": "a file path", "--postgresql": "a connection string", "--name": "a label", "--check-peer": "a run name",
    ]

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
            case "--check": options.check = true
            case "--store", "--postgresql", "--name", "--check-peer":
                guard let text = remaining.popFirst(), !text.isEmpty else { return .failure(.usage("\(argument) needs \(Self.valueNames[argument]!)")) }
                switch argument {
                case "--store": options.storePath = text
                case "--postgresql": options.postgreSQL = text
                case "--name": options.name = text
                default: options.checkPeer = text
                }
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
        if options.inMemory && options.postgreSQL != nil { return .failure(.usage("--in-memory and --postgresql exclude each other")) }
        if options.inMemory && (options.check || options.checkPeer != nil) {
            return .failure(.usage("--check needs a store another process can open: a file or --postgresql"))
        }
        return .success(options)
    }

    /// The store the options name.
    var store: StoreKind {
        if let postgreSQL { return .postgreSQL(postgreSQL) }
        return inMemory ? .inMemory : .sqlite(URL(fileURLWithPath: storePath))
    }

    /// The arguments that open the same store in another process.
    var storeArguments: [String] {
        if let postgreSQL { return ["--postgresql", postgreSQL] }
        return ["--store", storePath]
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
