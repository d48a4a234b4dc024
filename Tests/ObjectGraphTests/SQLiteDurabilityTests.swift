import Dispatch
import Foundation
import ObjectGraph
import Testing

@Suite("SQLite store: durability")
struct SQLiteDurabilityTests {
    static let childName = "objectgraph-durability-child"

    /// The child executable. SwiftPM builds every product of the package before `swift test`
    /// runs, into the folder that also holds the test bundle; look there first, then in the
    /// package's own `.build` folders.
    static func childExecutable(named childName: String = childName) -> URL? {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var folders = [
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            packageRoot.appendingPathComponent(".build/debug"),
            packageRoot.appendingPathComponent(".build/release"),
        ]
        folders += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        return folders.lazy
            .map { $0.appendingPathComponent(childName) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// What a child said before it was killed.
    struct KilledChild {
        let output: String
        let errors: String
        let wasKilled: Bool
    }

    /// Runs the child with `arguments`, reads its output until `stop` says enough (or it ends by
    /// itself), kills it with SIGKILL and returns what it wrote, including what it wrote before
    /// it died.
    static func runChild(_ arguments: [String], until stop: (String) -> Bool) throws -> KilledChild {
        let executable = try #require(
            childExecutable(), "\(childName) was not found next to the tests; run `swift build` (it builds all products) and try again")
        let output = Pipe()
        let errors = Pipe()
        let child = Process()
        child.executableURL = executable
        child.arguments = arguments
        child.standardOutput = output
        child.standardError = errors
        try child.run()
        // A child that hangs without printing would block the read below forever.
        let pid = child.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        var text = ""
        while !stop(text) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // the child ended by itself: the caller sees it
            text += String(decoding: chunk, as: UTF8.self)
        }
        kill(pid, SIGKILL)
        watchdog.cancel()  // before the child is reaped, so its pid cannot be reused meanwhile
        // What it wrote before it died is output too; read until the pipe closes.
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return KilledChild(output: text, errors: complaint, wasKilled: child.terminationReason == .uncaughtSignal)
    }

    @Test("every save a process reported before it was killed with SIGKILL is in the file")
    func killedWriterLosesNoReportedSave() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("durable.sqlite")
            var reported: [Int] = []
            // Twice: the second child appends to the file the first one was killed writing to.
            for round in 0..<2 {
                let target = reported.count + 40
                let child = try Self.runChild([url.path]) { reported.count + $0.split(separator: "\n").count >= target }
                #expect(child.wasKilled, "round \(round): the child ended on its own: \(child.errors)")
                // A line cut by the kill is not a report.
                let text = child.output
                let lines = text.hasSuffix("\n") ? text.split(separator: "\n") : text.split(separator: "\n").dropLast()
                reported += lines.compactMap { Int($0) }
            }

            let stored = try SQLiteFixture.withViewContext(at: url, model: SQLiteFixture.durabilityModel) { context in
                try context.fetch(FetchRequest<DurabilityRecord>()).map(\.sequence)
            }
            #expect(reported.count >= 80)
            let missing = Set(reported).subtracting(stored)
            #expect(missing.isEmpty, "saves reported but not in the file: \(missing.sorted())")
        }
    }
}
