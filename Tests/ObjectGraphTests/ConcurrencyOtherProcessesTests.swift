import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

/// Live results in this process follow writers in other processes (the
/// `objectgraph-history-child` executable), checked against a fresh fetch.
@Suite("Concurrency: live results follow other processes writing the same store (a SQLite file, a PostgreSQL schema)")
struct ConcurrencyOtherProcessesTests {
    @Test("a child process writes every kind of change while the parent's live results follow, equal to a fresh fetch after each step", arguments: StoreFlavor.persistent)
    func childWritesParentFollows(flavor: StoreFlavor) throws {
        do {
            let location = try StoreLocation(flavor)
            let parent = try historyContainer(location.kind())
            defer { parent.close() }
            let live = try LiveCards(container: parent)
            let child = try ChildWriter(location)
            let steps = [
                "board todo", "board done",
                "card a 1 todo", "card b 2 todo", "card watched 3 done", "card hidden -5 todo",
                "rank a 7", "rank hidden 4", "rename b c", "move a done", "move c -", "retitle todo urgent",
                "delete watched", "card watched 0", "batch-rank 5 6", "batch-delete 6",
            ]
            for step in steps {
                child.run(step)
                #expect(try eventually { try live.agree(with: parent) }, "after '\(step)': \(live.shown())")
            }
            // The parent writes too, and the child reads what it wrote.
            try parent.viewContext.performAndWait {
                let card = Card(context: parent.viewContext)
                card.title = "from-parent"
                card.rank = 2
                try parent.viewContext.save()
            }
            child.run("rank from-parent 3")
            #expect(try eventually { try live.agree(with: parent) })
            child.quit()
        }
    }

    @Test("a writer killed with SIGKILL in the middle of its saves: nothing half seen, and the parent's next save and a new writer work", arguments: StoreFlavor.persistent)
    func killedWriter(flavor: StoreFlavor) throws {
        do {
            let location = try StoreLocation(flavor)
            let parent = try historyContainer(location.kind())
            defer { parent.close() }
            let live = try LiveCards(container: parent)
            let child = try ChildWriter(location)
            child.send("churn")
            for _ in 0..<Int.random(in: 3...8) { _ = child.readLine() }
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.02))
            child.kill()
            #expect(try eventually { try live.agree(with: parent) }, "\(live.shown().controller.count) shown")
            // Every churn save inserts the 50 cards of a new round and, in the same save, deletes
            // those ranked a multiple of 3 (17 of the new ones): a half-seen save would leave the
            // newest round with another count.
            let rounds = Dictionary(grouping: live.shown().controller.filter { $0.hasPrefix("churn-") }) { $0.split(separator: "-")[1] }
            #expect(!rounds.isEmpty)
            let newest = try #require(rounds.keys.compactMap { Int($0) }.max())
            #expect(rounds["\(newest)"]?.count == 33, "the last round the parent saw is whole")
            try parent.viewContext.performAndWait {
                Card(context: parent.viewContext).title = "after the kill"
                try parent.viewContext.save()
            }
            // The killed writer's pipe goes with the next signal; a new writer works.
            let survivor = try ChildWriter(location)
            survivor.run("card survivor 1")
            #expect(try eventually { try live.agree(with: parent) })
            if case let .file(url) = location.place {
                let pipes = try FileManager.default.contentsOfDirectory(atPath: url.path + "-wakeups").filter { !$0.hasPrefix(".") }
                #expect(pipes.count == 2, "the parent's and the survivor's pipes only: \(pipes)")
            }
            survivor.quit()
        }
    }

    @Test("a writer that never signals is noticed by the parent looking now and then", arguments: StoreFlavor.persistent)
    func silentWriter(flavor: StoreFlavor) throws {
        do {
            let location = try StoreLocation(flavor)
            var options = ChangeFeedOptions()
            options.safetyNetInterval = .milliseconds(200)
            let parent = try historyContainer(location.kind(), options: options)
            defer { parent.close() }
            let live = try LiveCards(container: parent)
            let child = try ChildWriter(location, silent: true)
            for step in ["card a 1", "card b 2", "rank a 3", "delete b"] {
                child.run(step)
                #expect(try eventually { try live.agree(with: parent) }, "after '\(step)'")
            }
            child.quit()
        }
    }

    @Test("history trimmed by another process before this one read it: the history API says expired, live results start over", arguments: StoreFlavor.persistent)
    func expiredByAnotherProcess(flavor: StoreFlavor) throws {
        do {
            let location = try StoreLocation(flavor)
            var options = ChangeFeedOptions()
            options.safetyNetInterval = .seconds(3600)  // hears only what wakes it
            let parent = try historyContainer(location.kind(), options: options)
            defer { parent.close() }
            let live = try LiveCards(container: parent)
            let start = try parent.history.currentToken()
            let child = try ChildWriter(location, silent: true)
            child.run("card a 1")
            child.run("card b 2")
            child.run("trim")
            child.run("card c 3")
            #expect(throws: ObjectGraphError.self) { try parent.history.transactions(after: start) }
            let deliveries = live.deliveries
            parent.coordinator.feed?.checkNow()
            #expect(try eventually { try live.agree(with: parent) })
            #expect(live.deliveries == deliveries + 1, "one difference")
            child.quit()
        }
    }

    @Test("several processes writing at once: every save reaches the parent's live results once, nothing lost, nothing twice", arguments: StoreFlavor.persistent)
    func manyWriters(flavor: StoreFlavor) throws {
        do {
            let location = try StoreLocation(flavor)
            let parent = try historyContainer(location.kind())
            defer { parent.close() }
            let live = try LiveCards(container: parent)
            let writers = 4, saves = 40
            let children = try (0..<writers).map { _ in try ChildWriter(location) }
            for (index, child) in children.enumerated() { child.send("many w\(index) \(saves)") }
            for child in children {
                let answer = child.readLine(timeout: 120)
                #expect(answer?.hasPrefix("ok") == true, "\(answer ?? "nothing"): \(child.complaints())")
            }
            #expect(try eventually { try live.agree(with: parent) })
            let titles = live.shown().publisher.map { String($0.prefix { $0 != "#" }) }
            #expect(titles.count == writers * saves)
            #expect(Set(titles) == Set((0..<writers).flatMap { writer in (0..<saves).map { "w\(writer)-\($0)" } }))
            for child in children { child.quit() }
        }
    }
}
