import Dispatch
import Foundation
import Streams
import StreamsFoundation
import StreamsTesting
import Testing

/// NotificationCenter's publisher under notifications posted from several threads at once: they
/// reach the subscriber one at a time (rule 3), in the order each thread posted them, within
/// demand (rule 2), and nothing follows a cancel but the delivery under way (rule 5).
@Suite("Concurrency: NotificationCenter.publisher(for:object:)")
struct ConcurrencyNotificationCenterTests {
    static let name = Notification.Name("StreamsFoundationTests.concurrent")
    static let perThread = 2_000

    /// Posts `perThread` notifications from each of two threads at once; the object of each is
    /// `thread * 1_000_000 + index`.
    static func postFromTwoThreads(to center: NotificationCenter, alongside work: @escaping @Sendable () -> Void = {}) {
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            guard thread < 2 else { return work() }
            for index in 0..<perThread {
                center.post(name: name, object: NSNumber(value: thread * 1_000_000 + index))
            }
        }
    }

    @Test("with unlimited demand every notification arrives, one at a time, in each poster's order")
    func unlimited() {
        let center = NotificationCenter()
        let subscriber = TestSubscriber<Notification, Never>()
        center.publisher(for: Self.name).subscribe(subscriber)
        subscriber.request(.unlimited)
        Self.postFromTwoThreads(to: center)
        let numbers = subscriber.values.compactMap { ($0.object as? NSNumber)?.intValue }
        #expect(numbers.count == 2 * Self.perThread)
        for thread in 0..<2 {
            let posted = numbers.filter { $0 / 1_000_000 == thread }
            #expect(posted == Array(thread * 1_000_000..<thread * 1_000_000 + Self.perThread), "thread \(thread)'s order")
        }
        #expect(subscriber.violations.isEmpty)
    }

    @Test("with limited demand exactly what was asked for arrives; the rest is dropped")
    func limited() {
        let center = NotificationCenter()
        let subscriber = TestSubscriber<Notification, Never>()
        center.publisher(for: Self.name).subscribe(subscriber)
        subscriber.request(.max(100))
        Self.postFromTwoThreads(to: center)
        #expect(subscriber.values.count == 100)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a cancel racing with posts: nothing but the delivery under way follows it, and the subscriber is let go")
    func cancelRacingPosts() {
        for _ in 0..<20 {
            let center = NotificationCenter()
            let subscriber = TestSubscriber<Notification, Never>()
            weak let released = subscriber
            center.publisher(for: Self.name).subscribe(subscriber)
            subscriber.request(.unlimited)
            Self.postFromTwoThreads(to: center) { subscriber.cancel() }
            let countAfterPosting = subscriber.values.count
            center.post(name: Self.name, object: nil)
            #expect(subscriber.values.count == countAfterPosting, "the observer was removed")
            #expect(subscriber.violations.isEmpty)
            _ = consume subscriber
            #expect(released == nil)
        }
    }
}
