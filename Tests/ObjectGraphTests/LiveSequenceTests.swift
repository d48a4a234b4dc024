import Foundation
@testable import ObjectGraph
import Streams
import Testing

/// Lets an async consumer through one step at a time: `pass()` waits for a permit that
/// `grant()` gives.
final class Turnstile: @unchecked Sendable {  // `lock` protects `permits` and `waiters`
    private let lock = NSLock()
    private var permits = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func pass() async {
        await withCheckedContinuation { continuation in
            let passes = lock.withLock {
                guard permits > 0 else {
                    waiters.append(continuation)
                    return false
                }
                permits -= 1
                return true
            }
            if passes { continuation.resume() }
        }
    }

    /// Cancels `consumer`, lets it through (its `next()` then returns nil) and waits for it to end.
    func cancel<Success: Sendable, Failure: Error>(_ consumer: Task<Success, Failure>) async {
        consumer.cancel()
        grant()
        _ = await consumer.result
    }

    func grant() {
        let waiter = lock.withLock {
            guard !waiters.isEmpty else {
                permits += 1
                return nil as CheckedContinuation<Void, Never>?
            }
            return waiters.removeFirst()
        }
        waiter?.resume()
    }
}

/// What an async consumer received, read from the test's task.
final class Received<Value>: @unchecked Sendable {  // `lock` protects `values`
    private let lock = NSLock()
    private var values: [Value] = []

    func append(_ value: Value) {
        lock.withLock { values.append(value) }
    }

    var all: [Value] { lock.withLock { values } }

    /// How long an async test waits for a consumer before it fails. Generous: in the whole
    /// suite on two cores, synchronous tests can hold every thread of the cooperative pool for
    /// many seconds, and the consumer cannot run meanwhile.
    static var patience: Duration { .seconds(120) }
    /// The consumers' priority. The whole suite's tests are queued at once on the default
    /// priority's few threads, many of them blocking; a consumer queued behind them all could
    /// outwait any patience on a 2-core machine. A higher priority runs on threads of its own.
    static var consumerPriority: TaskPriority { .high }

    /// Waits, without blocking a thread of the cooperative pool (the consumer needs one),
    /// until `count` values arrived in all; false after ``patience``.
    func wait(for count: Int) async -> Bool {
        let deadline = ContinuousClock.now + Self.patience
        while all.count < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }
}

/// Weak references to objects a consumer saw, counted from the test's task.
final class WeakReferences: @unchecked Sendable {  // `lock` protects `references`
    private struct Reference { weak var object: AnyObject? }
    private let lock = NSLock()
    private var references: [Reference] = []

    func add(_ object: AnyObject) {
        lock.withLock { references.append(Reference(object: object)) }
    }

    /// How many of the objects are still alive.
    var alive: Int { lock.withLock { references.filter { $0.object != nil }.count } }
}

@Suite("LiveSequence: live results as async sequences, one unit of demand per next()")
struct LiveSequenceTests {
    typealias Setup = ObservableResultsTests.Setup
    static let byRank = ObservableResultsTests.byRank

    @Test("a consumer that suspends between values receives one coalesced difference covering every save since its last", arguments: StoreFlavor.allCases)
    func suspendingConsumer(flavor: StoreFlavor) async throws {
        let setup = try Setup(flavor)
        let view = setup.view
        let turnstile = Turnstile()
        let received = Received<CollectionDifference<Content>>()
        let consumer = Task(priority: Received<Int>.consumerPriority) {
            for try await difference in view.changes(for: Self.byRank) {
                received.append(difference)
                await turnstile.pass()
            }
        }
        #expect(await received.wait(for: 1))
        for step in 0..<5 {
            try setup.save { context in
                let content = Content(context: context)
                content.name = "new \(step)"
                content.rank = 100 + step
                try setup.first(named: "c\(step)", in: context).rank = 50 - step
            }
        }
        #expect(received.all.count == 1, "nothing is delivered while the consumer is away")
        turnstile.grant()
        #expect(await received.wait(for: 2))
        try view.performAndWait {
            var shown: [Content] = []
            for difference in received.all { shown = try #require(shown.applying(difference)) }
            #expect(shown == (try view.totallyOrderedFetch(Self.byRank)))
            #expect(received.all[1].insertions.count == 10, "five inserted, five moved, in one difference")
        }
        await turnstile.cancel(consumer)
    }

    @Test("cancelling the consuming task ends the loop and stops the controller", arguments: StoreFlavor.allCases)
    func cancellation(flavor: StoreFlavor) async throws {
        let setup = try Setup(flavor)
        let view = setup.view
        let received = Received<Int>()
        let seen = WeakReferences()
        let consumer = Task(priority: Received<Int>.consumerPriority) {
            for try await difference in view.changes(for: Self.byRank) {
                for case .insert(_, let object, _) in difference.insertions { seen.add(object) }
                received.append(difference.count)
            }
            return "ended"
        }
        #expect(await received.wait(for: 1))
        #expect(seen.alive == 5, "the controller holds the objects of its first value")
        #expect(view.hasObjectsDidChangeObservers)
        consumer.cancel()
        #expect(try await consumer.value == "ended")
        view.flush()
        #expect(!view.hasObjectsDidChangeObservers, "the controller stopped following the context")
        #expect(seen.alive == 0, "the subscription, its controller and the objects it held were released")
        try setup.save { Content(context: $0).name = "after" }
        #expect(received.all.count == 1)
    }

    @Test("leaving the loop stops the controller, and nothing it held stays alive", arguments: StoreFlavor.allCases)
    func leavingTheLoop(flavor: StoreFlavor) async throws {
        let setup = try Setup(flavor)
        let view = setup.view
        weak var weakObject: Content?
        var iterations = 0
        for try await difference in view.changes(for: Self.byRank) {
            iterations += 1
            weakObject = difference.insertions.first.map { change -> Content in
                if case .insert(_, let element, _) = change { return element }
                preconditionFailure()
            }
            break
        }
        #expect(iterations == 1)
        view.flush()
        #expect(!view.hasObjectsDidChangeObservers)
        #expect(weakObject == nil, "the controller and its objects were released")
    }

    @Test("a failing fetch is thrown once, then the sequence ends", arguments: StoreFlavor.allCases)
    func failure(flavor: StoreFlavor) async throws {
        let setup = try Setup(flavor)
        var iterator = setup.view.changes(for: FetchRequest(predicate: Content.inBucketX)).makeAsyncIterator()
        await #expect(throws: ObjectGraphError.self) { _ = try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test("the single object: its first value is nil, then the object a sibling saves, then nil once it is deleted", arguments: StoreFlavor.allCases)
    func singleObject(flavor: StoreFlavor) async throws {
        let setup = try Setup(flavor)
        let view = setup.view
        let received = Received<ObjectID?>()
        let turnstile = Turnstile()
        let consumer = Task(priority: Received<Int>.consumerPriority) {
            for try await object in view.objectChanges(matching: #Predicate<Content> { $0.name == "ada" }) {
                received.append(object?.objectID)
                await turnstile.pass()
            }
        }
        #expect(await received.wait(for: 1))
        try setup.save { Content(context: $0).name = "ada" }
        turnstile.grant()
        #expect(await received.wait(for: 2))
        try setup.save { $0.delete(try setup.first(named: "ada", in: $0)) }
        turnstile.grant()
        #expect(await received.wait(for: 3))
        let ids = received.all
        #expect(ids.count == 3 && ids[0] == nil && ids[1] != nil && ids[2] == nil)
        await turnstile.cancel(consumer)
    }

    @Test("queries that agree, awaited: every value shows the list and its count at one state", arguments: StoreFlavor.allCases)
    func agreeing(flavor: StoreFlavor) async throws {
        let setup = try Setup(flavor)
        let view = setup.view
        let even = FetchRequest<Content>(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.rank)])
        let received = Received<(CollectionDifference<Content>, Int)>()
        let turnstile = Turnstile()
        let consumer = Task(priority: Received<Int>.consumerPriority) {
            for try await (difference, count) in view.changes(for: .results(even), .count(even)) {
                received.append((difference, count))
                await turnstile.pass()
            }
        }
        #expect(await received.wait(for: 1))
        for index in 0..<4 {
            try setup.save { context in
                let content = Content(context: context)
                content.isEven = true
                content.rank = index
            }
        }
        turnstile.grant()
        #expect(await received.wait(for: 2))
        var shown: [Content] = []
        for (difference, count) in received.all {
            shown = try #require(shown.applying(difference))
            #expect(shown.count == count)
        }
        #expect(received.all.map(\.1) == [0, 4])
        await turnstile.cancel(consumer)
    }
}
