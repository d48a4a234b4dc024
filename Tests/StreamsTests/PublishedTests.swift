import Streams
import StreamsTesting
import Testing

@Suite("@Published and ObservableObject")
struct PublishedTests {
    final class Counter: ObservableObject {
        @Published var count = 0
        @Published var label = "zero"
    }

    class Base: ObservableObject {
        @Published var name = "base"
    }

    final class Derived: Base {
        @Published var detail = 0
    }

    @Test("$property publishes the current value on subscription, then every new value")
    func currentThenNew() {
        let counter = Counter()
        counter.count = 1
        var received: [Int] = []
        let cancellable = counter.$count.sink { received.append($0) }
        counter.count = 2
        counter.count = 3
        #expect(received == [1, 2, 3])
        withExtendedLifetime(cancellable) {}
    }

    @Test("a subscriber sees the new value before the property changes, as in Combine's willSet")
    func willSetSemantics() {
        let counter = Counter()
        var seen: [(received: Int, property: Int)] = []
        let cancellable = counter.$count.sink { seen.append(($0, counter.count)) }
        counter.count = 5
        counter.count = 6
        #expect(seen.map(\.received) == [0, 5, 6])
        #expect(seen.map(\.property) == [0, 0, 5])
        #expect(counter.count == 6)
        withExtendedLifetime(cancellable) {}
    }

    @Test("$property waits for demand and delivers the latest value when asked")
    func demand() {
        let counter = Counter()
        let subscriber = TestSubscriber<Int, Never>()
        counter.$count.subscribe(subscriber)
        counter.count = 1
        counter.count = 2
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        #expect(subscriber.values == [2])
        subscriber.request(.max(1))
        counter.count = 3
        #expect(subscriber.values == [2, 3])
    }

    @Test("Published(initialValue:) starts from that value")
    func initialValue() {
        final class Model {
            @Published(initialValue: "start") var text: String
        }
        var received: [String] = []
        let model = Model()
        let cancellable = model.$text.sink { received.append($0) }
        #expect(received == ["start"])
        withExtendedLifetime(cancellable) {}
    }

    // MARK: objectWillChange

    @Test("objectWillChange fires before the property changes, once per change, for every @Published property")
    func objectWillChange() {
        let counter = Counter()
        var log: [String] = []
        let willChange = counter.objectWillChange.sink { log.append("will change, count is \(counter.count)") }
        let values = counter.$count.dropFirstValue { log.append("value \($0)") }
        counter.count = 1
        counter.label = "one"
        #expect(log == ["will change, count is 0", "value 1", "will change, count is 1"])
        withExtendedLifetime((willChange, values)) {}
    }

    @Test("objectWillChange also fires for @Published properties declared in a superclass, through one publisher")
    func superclassProperties() {
        let derived = Derived()
        var fired = 0
        let cancellable = derived.objectWillChange.sink { fired += 1 }
        derived.name = "changed"
        derived.detail = 1
        #expect(fired == 2)
        // Every access gives the one shared publisher: a second subscriber sees the same changes.
        var secondFired = 0
        let second = derived.objectWillChange.sink { secondFired += 1 }
        derived.name = "again"
        #expect(fired == 3)
        #expect(secondFired == 1)
        withExtendedLifetime((cancellable, second)) {}
    }

    @Test("Combine's enclosing-instance subscript reads and writes the property through its object, notifying objectWillChange")
    func enclosingInstanceSubscript() {
        final class Model: ObservableObject {
            var name = Published(initialValue: "a")  // the storage, declared as Combine's tests do
            var other = "unchanged"
        }
        let model = Model()
        var changes = 0
        let cancellable = model.objectWillChange.sink { changes += 1 }
        let values = model.name.projectedValue.record(requesting: .unlimited)
        #expect(Published<String>[_enclosingInstance: model, wrapped: \.other, storage: \.name] == "a")
        Published<String>[_enclosingInstance: model, wrapped: \.other, storage: \.name] += "b"
        #expect(Published<String>[_enclosingInstance: model, wrapped: \.other, storage: \.name] == "ab")
        #expect(model.other == "unchanged", "the storage key path is the one used")
        #expect(changes == 1)
        #expect(values.values == ["a", "ab"])
        withExtendedLifetime(cancellable) {}
    }

    @Test("generic observable classes and subclasses of observable classes publish their changes")
    func genericAndSubclassedObservableObjects() {
        class Base<Value>: ObservableObject {
            @Published var value: Value
            init(_ value: Value) { self.value = value }
        }
        final class Derived: Base<Int> {
            @Published var label = ""
            var plain = 0
        }
        let derived = Derived(1)
        var changes = 0
        let cancellable = derived.objectWillChange.sink { changes += 1 }
        derived.value += 1
        derived.label = "x"
        derived.plain = 3
        #expect(changes == 2)
        #expect(derived.objectWillChange === derived.objectWillChange)
        let generic = Base<[String]>(["a"])
        let values = generic.$value.record(requesting: .unlimited)
        generic.value.append("b")
        #expect(values.values == [["a"], ["a", "b"]])
        withExtendedLifetime(cancellable) {}
    }

    @Test("ObservableObjectPublisher sends a Void value per send()")
    func observableObjectPublisher() {
        let publisher = ObservableObjectPublisher()
        let subscriber = TestSubscriber<Void, Never>()
        publisher.subscribe(subscriber)
        subscriber.request(.max(1))
        publisher.send()
        publisher.send()
        #expect(subscriber.values.count == 1)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("an ObservableObject may bring its own objectWillChange publisher")
    func customObjectWillChange() {
        final class Manual: ObservableObject {
            let objectWillChange = PassthroughSubject<Void, Never>()
        }
        let manual = Manual()
        var fired = 0
        let cancellable = manual.objectWillChange.sink { fired += 1 }
        manual.objectWillChange.send()
        #expect(fired == 1)
        withExtendedLifetime(cancellable) {}
    }

    // MARK: assign(to:)

    @Test("assign(to: &$property) republishes every value through the property")
    func assignToPublished() {
        final class Model {
            @Published var total = 0
            init(source: PassthroughSubject<Int, Never>) {
                source.assign(to: &$total)
            }
        }
        let source = PassthroughSubject<Int, Never>()
        let model = Model(source: source)
        var received: [Int] = []
        let cancellable = model.$total.sink { received.append($0) }
        source.send(4)
        source.send(5)
        #expect(model.total == 5)
        #expect(received == [0, 4, 5])
        withExtendedLifetime(cancellable) {}
    }

    @Test("a second assign(to:) on the same property replaces the first, which is cancelled")
    func assignReplaces() {
        final class Model {
            @Published var value = 0
        }
        let model = Model()
        let first = TestPublisher<Int, Never>()
        let second = TestPublisher<Int, Never>()
        first.assign(to: &model.$value)
        #expect(first.requests == [.unlimited])
        second.assign(to: &model.$value)
        #expect(first.cancelCount == 1)
        second.send(7)
        #expect(model.value == 7)
    }

    // MARK: RuleCheck

    @Test("$property keeps the stream rules")
    func rules() {
        struct CountPublisher: Publisher {
            typealias Output = Int
            typealias Failure = Never
            let counter = Counter()
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                counter.$count.subscribe(subscriber)
            }
        }
        let findings = RuleCheck.run(make: { CountPublisher() }, drive: { $0.counter.count += 1 })
        #expect(findings.isEmpty, "\(findings)")
        struct WillChangePublisher: Publisher {
            typealias Output = Void
            typealias Failure = Never
            let counter = Counter()
            func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
                counter.objectWillChange.subscribe(subscriber)
            }
        }
        let willChange = RuleCheck.run(make: { WillChangePublisher() }, drive: { $0.counter.count += 1 })
        #expect(willChange.isEmpty, "\(willChange)")
    }
}

extension Publisher where Failure == Never {
    /// Sinks every value after the first (the current value a `@Published` property sends on
    /// subscription).
    fileprivate func dropFirstValue(_ receive: @escaping (Output) -> Void) -> AnyCancellable {
        var isFirst = true
        return sink { value in
            if isFirst { isFirst = false } else { receive(value) }
        }
    }
}
