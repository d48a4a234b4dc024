import Foundation
import Streams
import StreamsFoundation
import StreamsTesting
import Testing

@Suite("NotificationCenter.publisher(for:object:)")
struct NotificationCenterPublisherTests {
    static let name = Notification.Name("StreamsFoundationTests.ping")

    @Test("delivers the notifications posted with its name, as Combine's")
    func delivers() {
        let center = NotificationCenter()
        var received: [Notification.Name] = []
        let cancellable = center.publisher(for: Self.name).sink { received.append($0.name) }
        center.post(name: Self.name, object: nil)
        center.post(name: Notification.Name("other"), object: nil)
        center.post(name: Self.name, object: nil)
        #expect(received == [Self.name, Self.name])
        withExtendedLifetime(cancellable) {}
    }

    @Test("with an object, only that object's notifications are delivered")
    func filtersByObject() {
        let center = NotificationCenter()
        let sender = NSObject()
        var count = 0
        let cancellable = center.publisher(for: Self.name, object: sender).sink { _ in count += 1 }
        center.post(name: Self.name, object: NSObject())
        center.post(name: Self.name, object: sender)
        #expect(count == 1)
        withExtendedLifetime(cancellable) {}
    }

    @Test("a notification posted while the subscriber has no demand is dropped; later ones wait for nothing")
    func demand() {
        let center = NotificationCenter()
        let subscriber = TestSubscriber<Notification, Never>()
        center.publisher(for: Self.name).subscribe(subscriber)
        center.post(name: Self.name, object: 1 as NSNumber)
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        center.post(name: Self.name, object: 2 as NSNumber)
        center.post(name: Self.name, object: 3 as NSNumber)
        #expect(subscriber.values.map { $0.object as? NSNumber } == [2 as NSNumber])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("cancelling removes the observer: nothing is delivered afterwards, and the subscriber is let go")
    func cancel() {
        let center = NotificationCenter()
        weak var weakSubscriber: TestSubscriber<Notification, Never>?
        do {
            let subscriber = TestSubscriber<Notification, Never>()
            weakSubscriber = subscriber
            center.publisher(for: Self.name).subscribe(subscriber)
            subscriber.request(.unlimited)
            center.post(name: Self.name, object: nil)
            #expect(subscriber.values.count == 1)
            subscriber.cancel()
            center.post(name: Self.name, object: nil)
            #expect(subscriber.values.count == 1)
        }
        #expect(weakSubscriber == nil)
    }

    @Test("the publisher keeps Combine's shape: center, name and object, and equality")
    func shape() {
        let center = NotificationCenter()
        let publisher = center.publisher(for: Self.name)
        #expect(publisher.center === center)
        #expect(publisher.name == Self.name)
        #expect(publisher.object == nil)
        #expect(publisher == NotificationCenter.Publisher(center: center, name: Self.name))
    }
}
