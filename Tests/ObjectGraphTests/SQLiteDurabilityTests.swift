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
    static func childExecutable() -> URL? {
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

    @Test("every save a process reported before it was killed with SIGKILL is in the file")
    func killedWriterLosesNoReportedSave() throws {
        let executable = try #require(
            Self.childExecutable(),
            "\(Self.childName) was not found next to the tests; run `swift build` (it builds all products) and try again")
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("durable.sqlite")
            var reported: [Int] = []
            // Twice: the second child appends to the file the first one was killed writing to.
            for round in 0..<2 {
                let output = Pipe()
                let errors = Pipe()
                let child = Process()
                child.executableURL = executable
                child.arguments = [url.path]
                child.standardOutput = output
                child.standardError = errors
                try child.run()
                // A child that hangs without printing would block the read below forever.
                let pid = child.processIdentifier
                let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
                DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)

                var text = ""
                let target = reported.count + 40
                while reported.count + text.split(separator: "\n").count < target {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }  // the child ended by itself: a failure, reported below
                    text += String(decoding: chunk, as: UTF8.self)
                }
                kill(child.processIdentifier, SIGKILL)
                watchdog.cancel()  // before the child is reaped, so its pid cannot be reused meanwhile
                // Numbers written before death are reports too; read until the pipe closes.
                text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                child.waitUntilExit()
                let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                #expect(child.terminationReason == .uncaughtSignal, "round \(round): the child ended on its own: \(complaint)")
                // A line cut by the kill is not a report.
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
