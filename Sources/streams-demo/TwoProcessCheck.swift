import Dispatch
import Foundation
import ObjectGraph
import Streams

/// `streams-demo --check`: the demo's promise checked by a script. Two processes open the same
/// store (a PostgreSQL database, or a SQLite file), each following the board with a
/// `changesPublisher`; each edits, and each must see the other's edit arrive on its board.
///
/// 1. The first process starts the second (`--check-peer RUN`), which follows the board and
///    says `ready`.
/// 2. The first saves an item, `RUN first`.
/// 3. The second sees it arrive, then renames it `RUN first ✎second` and saves a new item
///    `RUN second` in one save.
/// 4. The first sees both arrive, deletes what the check made, and exits 0 once the second has
///    exited 0. Either side gives up after ``timeout``.
///
/// Items carry the run's name, so the check works on a database that already holds a board.
@MainActor
enum TwoProcessCheck {
    static let timeout: Double = 30

    /// When the first process saved its item.
    private static var savedAt: DispatchTime?
    /// Whether the first process saw the second's edits.
    private static var seen = false
    /// Whether the second process exited with status 0.
    private static var peerExited = false
    /// Whether the second process made its edits.
    private static var edited = false
    /// The view model of the side running in this process: it lives until the process exits.
    private static var keepAlive: BoardViewModel?

    /// The first process's side; runs on the main queue, which is the view context's.
    static func runFirst(options: DemoOptions, container: PersistentContainer) {
        let run = "check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let first = "\(run) first", renamed = "\(run) first ✎second", second = "\(run) second"
        let started = DispatchTime.now()

        let peer = Process()
        peer.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        peer.arguments = options.storeArguments + ["--check-peer", run]
        let output = Pipe()
        peer.standardOutput = output
        peer.terminationHandler = { process in
            let status = process.terminationStatus
            DispatchQueue.main.async { MainActor.assumeIsolated {
                guard status == 0 else { fail("the second process failed (status \(status))") }
                peerExited = true
                finishIfDone(started: started)
            } }
        }

        let viewModel = BoardViewModel(
            context: container.viewContext,
            onChange: { model, _ in
                let titles = Set(model.rows.map(\.title))
                guard !seen, let savedAt, titles.contains(renamed), titles.contains(second) else { return }
                seen = true
                say("saw the second process's rename and insert arrive live, \(milliseconds(since: savedAt)) ms after the first item was saved")
                removeCheckItems(run: run, container: container)
                finishIfDone(started: started)
            },
            onFailure: { error in fail("the live results failed: \(error)") })
        keepAlive = viewModel

        forwardLines(of: output) { line in
            guard line == "ready" else { return }
            DispatchQueue.main.async { MainActor.assumeIsolated {
                do {
                    try saveItem(first, bucket: run, container: container)
                    savedAt = DispatchTime.now()
                    say("saved '\(first)'")
                } catch {
                    fail("cannot save: \(error)")
                }
            } }
        }
        do {
            try peer.run()
        } catch {
            fail("cannot start the second process: \(error)")
        }
        say("started the second process (pid \(peer.processIdentifier)) on the same store")
        DispatchQueue.main.asyncAfter(deadline: .now() + timeout) { MainActor.assumeIsolated {
            peer.terminate()
            fail(seen ? "the second process did not exit within \(Int(timeout)) s" : "the second process's edits did not arrive within \(Int(timeout)) s")
        } }
    }

    /// The second process's side; runs on the main queue, which is the view context's.
    static func runSecond(run: String, container: PersistentContainer) {
        let first = "\(run) first", renamed = "\(run) first ✎second", second = "\(run) second"
        let viewModel = BoardViewModel(
            context: container.viewContext,
            onChange: { model, _ in
                let titles = Set(model.rows.map(\.title))
                if !edited, titles.contains(first) {
                    edited = true
                    do {
                        try renameAndAdd(first, to: renamed, adding: second, container: container)
                    } catch {
                        fail("cannot save: \(error)")
                    }
                } else if edited, titles.contains(renamed), titles.contains(second) {
                    print("saw '\(first)' arrive live; renamed it and added '\(second)'")
                    exit(0)
                }
            },
            onFailure: { error in fail("the live results failed: \(error)") })
        keepAlive = viewModel
        // The view model fetched as it subscribed: what arrives now arrives live.
        print("ready")
        fflush(nil)
        DispatchQueue.main.asyncAfter(deadline: .now() + timeout) {
            fail("'\(first)' did not arrive within \(Int(timeout)) s")
        }
    }

    /// Exits 0 once the first process saw the second's edits and the second exited 0 (it
    /// exits once it saw the first's, which may come first or last).
    private static func finishIfDone(started: DispatchTime) {
        guard seen, peerExited else { return }
        say("the second process saw the first's item live and exited 0")
        say("check passed in \(milliseconds(since: started)) ms")
        exit(0)
    }

    // MARK: Edits

    private static func saveItem(_ title: String, bucket name: String, container: PersistentContainer) throws {
        let context = container.newBackgroundContext(name: "check")
        try context.performAndWait {
            let bucket = Bucket(context: context)
            bucket.name = name
            let item = Item(context: context)
            item.title = title
            item.bucket = bucket
            try context.save()
        }
    }

    private static func renameAndAdd(_ title: String, to newTitle: String, adding added: String, container: PersistentContainer) throws {
        let context = container.newBackgroundContext(name: "check")
        try context.performAndWait {
            guard let item = try context.fetch(FetchRequest<Item>(predicate: #Predicate { $0.title == title })).first else {
                throw DemoError.store("'\(title)' is on the board but a fetch does not find it")
            }
            item.title = newTitle
            let new = Item(context: context)
            new.title = added
            new.bucket = item.bucket
            try context.save()
        }
    }

    /// Deletes the check's bucket (and so its items), then waits for the second process.
    private static func removeCheckItems(run: String, container: PersistentContainer) {
        let context = container.newBackgroundContext(name: "check")
        do {
            try context.performAndWait {
                for bucket in try context.fetch(FetchRequest<Bucket>(predicate: #Predicate { $0.name == run })) { context.delete(bucket) }
                try context.save()
            }
        } catch {
            fail("cannot remove the check's items: \(error)")
        }
    }

    // MARK: Output

    /// Reads `pipe` line by line on a thread of its own, echoing each line marked as the
    /// second process's, and hands it to `handle`.
    nonisolated private static func forwardLines(of pipe: Pipe, _ handle: @escaping @Sendable (String) -> Void) {
        let reading = pipe.fileHandleForReading
        Thread.detachNewThread {
            var buffered = Data()
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { return }
                buffered.append(chunk)
                while let end = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffered[buffered.startIndex..<end], as: UTF8.self)
                    buffered.removeSubrange(buffered.startIndex...end)
                    print("  [second] \(line)")
                    fflush(nil)
                    handle(line)
                }
            }
        }
    }

    private static func say(_ line: String) {
        print("[first] \(line)")
        fflush(nil)
    }

    nonisolated private static func fail(_ message: String) -> Never {
        StreamsDemo.writeError("streams-demo --check: \(message)")
        exit(1)
    }

    private static func milliseconds(since start: DispatchTime) -> String {
        String(format: "%.1f", Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
    }
}
