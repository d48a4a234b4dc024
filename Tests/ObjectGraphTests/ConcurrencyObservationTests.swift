import Dispatch
import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// Issue #24 under threads (and ThreadSanitizer in CI): sibling contexts saving at once, live
/// observers of every form made and released on other threads, requests from other threads.
@Suite("Concurrency: observable results, agreeing queries and many observers while siblings save")
struct ConcurrencyObservationTests {
    static let byRank = FetchRequest<Content>(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.name)])
    static let even = FetchRequest<Content>(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.rank)])
    static let saves = 40

    /// Two sibling contexts, each on its own thread, insert and update contents at once; returns
    /// the saves that failed (none should).
    ///
    /// Both workers bump the rank of the same first content, so their updates collide: each
    /// worker waits a little between the update and the save, so that this happens on every run,
    /// and resolves it by ``MergePolicy/objectWins``. Under the default ``MergePolicy/error`` the
    /// losing worker's save fails, its context keeps the conflicting change, and every later save
    /// of that worker fails with it: its contents never reach the store, and a test expecting one
    /// of them (as `observablesFollowConcurrentSaves` expects "w1-7") fails on a loaded machine.
    static func saveFromTwoThreads(_ container: PersistentContainer) -> [String] {
        let failures = Received<String>()
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            let context = container.newBackgroundContext(name: "worker \(worker)")
            context.performAndWait { context.mergePolicy = .objectWins }
            for step in 0..<saves {
                context.performAndWait {
                    let content = Content(context: context)
                    content.name = "w\(worker)-\(step)"
                    content.rank = step
                    content.isEven = step % 2 == 0
                    if step % 5 == 4, let earlier = try? context.fetch(FetchRequest<Content>(predicate: #Predicate { $0.name.starts(with: "w") })).first {
                        earlier.rank += 100
                        usleep(2000)  // widens the window in which the other worker saves the same content
                    }
                    do {
                        try context.save()
                    } catch {
                        failures.append("worker \(worker), step \(step): \(error)")
                    }
                }
            }
        }
        return failures.all
    }

    @Test("while siblings save from two threads, the observable forms and the agreeing queries end equal to a fresh fetch")
    func observablesFollowConcurrentSaves() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let (results, match, agreeing) = view.performAndWait {
            (view.observableResults(for: Self.byRank) { $0.name },
             view.observableObject(matching: #Predicate<Content> { $0.name == "w1-7" }),
             view.observableResults(for: .results(Self.even), .count(Self.even)))
        }
        // The Combine form, asked for values from another thread while the saves go on.
        let coalesced = TestSubscriber<(CollectionDifference<Content>, Int), ObjectGraphError>()
        let publisher = view.changesPublisher(for: .results(Self.even), .count(Self.even))
        publisher.subscribe(coalesced)
        let requests = DispatchQueue(label: "requests")
        let stop = DispatchSemaphore(value: 0)
        let requester = DispatchGroup()
        requests.async(group: requester) {
            while stop.wait(timeout: .now() + .milliseconds(1)) == .timedOut { coalesced.request(.max(1)) }
        }
        let failedSaves = Self.saveFromTwoThreads(container)
        stop.signal()
        requester.wait()
        view.flush()
        view.performAndWait { coalesced.request(.unlimited) }
        try view.performAndWait {
            let fresh = try view.totallyOrderedFetch(Self.byRank)
            #expect(results.objects == fresh)
            #expect(results.elements == fresh.map(\.name))
            #expect(failedSaves.isEmpty, "\(failedSaves)")
            #expect(match.object?.name == "w1-7", "failure: \(String(describing: match.failure))")
            let even = try view.totallyOrderedFetch(Self.even)
            #expect(agreeing.values.0 == even)
            #expect(agreeing.values.1 == even.count)
            var shown: [Content] = []
            for (difference, count) in coalesced.values {
                shown = try #require(shown.applying(difference))
                #expect(shown.count == count, "a value whose parts disagree")
            }
            #expect(shown == even)
        }
        #expect(coalesced.violations.isEmpty)
    }

    @Test("observers made and released on other threads while siblings save: each ends right, none is left registered")
    func observersComeAndGo() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let group = DispatchGroup()
        let failures = Received<String>()
        for observer in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for round in 0..<10 {
                    let name = "w\(observer % 2)-\(round)"
                    let single = TestSubscriber<Content?, ObjectGraphError>()
                    view.objectPublisher(matching: #Predicate<Content> { $0.name == name }).subscribe(single)
                    single.request(.unlimited)
                    let list = TestSubscriber<CollectionDifference<Content>, ObjectGraphError>()
                    view.changesPublisher(for: Self.even).subscribe(list)
                    list.request(.max(1))
                    let observable = view.performAndWait { view.observableResults(for: Self.even) }
                    view.flush()
                    if single.completion != nil || list.completion != nil { failures.append("\(name) ended") }
                    single.cancel()
                    list.cancel()
                    withExtendedLifetime(observable) {}
                }
            }
        }
        let failedSaves = Self.saveFromTwoThreads(container)
        group.wait()
        #expect(failedSaves.isEmpty, "\(failedSaves)")
        view.flush()
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(!view.hasObjectsDidChangeObservers, "every observer is gone")
        #expect(view.performAndWait { view.liveObservers.entityNames.isEmpty })
    }

    @Test("an async consumer in a task follows saves made on two threads, and its cancel stops its controller")
    func asyncConsumerFollowsConcurrentSaves() async throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let received = Received<CollectionDifference<Content>>()
        let turnstile = Turnstile()
        let consumer = Task(priority: Received<Int>.consumerPriority) {
            for try await difference in view.changes(for: Self.byRank) {
                received.append(difference)
                await turnstile.pass()
            }
        }
        // The results start empty: an empty difference is never sent, the first comes with a save.
        let saving = Task.detached { Self.saveFromTwoThreads(container) }
        for _ in 0..<5 {
            turnstile.grant()
            try? await Task.sleep(for: .milliseconds(5))
        }
        let failedSaves = await saving.value
        #expect(failedSaves.isEmpty, "\(failedSaves)")
        view.flush()
        // The consumer asks again until it has caught up: its differences then replay onto
        // the results of a fresh fetch.
        let deadline = ContinuousClock.now + Received<Int>.patience
        var caughtUp = false
        while !caughtUp, ContinuousClock.now < deadline {
            turnstile.grant()
            try? await Task.sleep(for: .milliseconds(10))
            caughtUp = try view.performAndWait {
                var shown: [Content] = []
                for difference in received.all { shown = try #require(shown.applying(difference)) }
                return shown == (try view.totallyOrderedFetch(Self.byRank))
            }
        }
        #expect(caughtUp)
        await turnstile.cancel(consumer)
        view.flush()
        #expect(!view.hasObjectsDidChangeObservers)
    }
}
