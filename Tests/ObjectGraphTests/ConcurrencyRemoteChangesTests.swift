import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

/// Two containers of one process on one file, written from several threads at once while live
/// results in one of them follow: run under ThreadSanitizer in CI.
@Suite("Concurrency: containers of one process following each other")
struct ConcurrencyRemoteChangesTests {
    @Test("threads saving through two containers at once: the live results of each end equal to a fresh fetch, every card once")
    func concurrentSavesAcrossContainers() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("threads.sqlite")
            let containers = try [historyContainer(at: url), historyContainer(at: url)]
            let live = try containers.map { try LiveCards(container: $0) }
            let workers = 4, saves = 25
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let context = containers[worker % 2].newBackgroundContext(name: "worker \(worker)")
                context.mergePolicy = .objectWins
                context.performAndWait {
                    for index in 0..<saves {
                        let card = Card(context: context)
                        card.title = "w\(worker)-\(index)"
                        card.rank = index % 7
                        if index % 5 == 4, let earlier = try? context.fetch(FetchRequest<Card>(predicate: #Predicate { $0.rank == 1 })).first {
                            earlier.rank = 8
                        }
                        do { try context.save() } catch { Issue.record("worker \(worker): \(error)") }
                    }
                }
            }
            for (container, cards) in zip(containers, live) {
                #expect(try eventually { try cards.agree(with: container) })
                let titles = cards.shown().publisher.map { String($0.prefix { $0 != "#" }) }
                #expect(titles.count == workers * saves && Set(titles).count == titles.count)
            }
        }
    }

    @Test("a container closed while another saves: its feed stops, its pipe goes, the other goes on")
    func closingWhileOthersSave() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("closing.sqlite")
            let writer = try historyContainer(at: url)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                let context = writer.newBackgroundContext()
                context.performAndWait {
                    for index in 0..<100 {
                        Card(context: context).rank = index
                        do { try context.save() } catch { Issue.record("\(error)") }
                    }
                }
            }
            for _ in 0..<5 {
                let reader = try historyContainer(at: url)
                let live = try LiveCards(container: reader)
                Thread.sleep(forTimeInterval: 0.01)
                reader.close()
                withExtendedLifetime(live) {}
            }
            group.wait()
            let after = try historyContainer(at: url)
            let live = try LiveCards(container: after)
            let agreed = try eventually { try live.agree(with: after) }
            let expected = try live.freshFetch(in: after)
            #expect(agreed, "\(live.shown()) against \(expected)")
            let pipes = try FileManager.default.contentsOfDirectory(atPath: url.path + "-wakeups").filter { !$0.hasPrefix(".") }
            #expect(pipes.count == 2, "the writer's and the last reader's: \(pipes)")
        }
    }
}
