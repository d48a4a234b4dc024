import Dispatch
import Foundation
import Testing

/// Another process writing a store: the `objectgraph-history-child` executable, driven line by
/// line (see its main.swift for the commands).
final class ChildWriter: @unchecked Sendable {  // used from one test thread at a time
    static let name = "objectgraph-history-child"
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffered = ""

    /// A child writing `location` (a SQLite file or a PostgreSQL schema).
    convenience init(_ location: StoreLocation, silent: Bool = false, correctnessModel: Bool = false) throws {
        switch location.place {
        case let .file(url): try self.init(storePath: url.path, silent: silent, correctnessModel: correctnessModel)
        case let .schema(text, _): try self.init(storePath: text, postgreSQL: true, silent: silent, correctnessModel: correctnessModel)
        }
    }

    init(storePath: String, postgreSQL: Bool = false, silent: Bool = false, correctnessModel: Bool = false) throws {
        let executable = try #require(
            SQLiteDurabilityTests.childExecutable(named: Self.name),
            "\(Self.name) was not found next to the tests; run `swift build` (it builds all products) and try again")
        process.executableURL = executable
        process.arguments = [storePath] + (postgreSQL ? ["--postgresql"] : []) + (silent ? ["--silent"] : []) + (correctnessModel ? ["--correctness"] : [])
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    deinit {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Sends one command.
    func send(_ command: String) {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    /// The next line the child writes; `nil` if it ended, or said nothing for `timeout`.
    func readLine(timeout: TimeInterval = 60) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while !buffered.contains("\n") {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            // Waits for the child in slices, so that a child that hangs cannot block the test.
            guard output.fileHandleForReading.waitForBytes(milliseconds: Int32(min(remaining, 1) * 1000)) else { continue }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }  // the child ended
            buffered += String(decoding: chunk, as: UTF8.self)
        }
        let line = String(buffered.prefix { $0 != "\n" })
        buffered.removeFirst(line.count + 1)
        return line
    }

    /// Runs a command and returns the history token of its save; records an issue if it failed.
    @discardableResult
    func run(_ command: String, sourceLocation: SourceLocation = #_sourceLocation) -> Int64? {
        send(command)
        guard let answer = readLine() else {
            Issue.record("the child said nothing after '\(command)': \(complaints())", sourceLocation: sourceLocation)
            return nil
        }
        guard answer.hasPrefix("ok ") else {
            Issue.record("the child could not '\(command)': \(answer)", sourceLocation: sourceLocation)
            return nil
        }
        return Int64(answer.dropFirst(3).prefix { $0 != " " })
    }

    /// Runs a command of the `--correctness` mode; returns the key of the object it made.
    func runMaking(_ command: String, sourceLocation: SourceLocation = #_sourceLocation) -> Int64? {
        send(command)
        guard let answer = readLine(), answer.hasPrefix("ok ") else {
            Issue.record("the child could not '\(command)': \(complaints())", sourceLocation: sourceLocation)
            return nil
        }
        return answer.split(separator: " ").last.flatMap { Int64($0) }
    }

    /// Ends the child with SIGKILL, wherever it is.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Asks the child to quit and waits for it.
    func quit() {
        send("quit")
        process.waitUntilExit()
    }

    /// What the child wrote to its standard error.
    func complaints() -> String {
        guard !process.isRunning else { return "(still running)" }
        return String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}

extension FileHandle {
    /// Whether a read would return at once (data or end of file), waiting up to `milliseconds`.
    func waitForBytes(milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }
}
