import Streams
import StreamsTesting
import Testing

@Suite("Sinks")
struct SinksTests {
    final class Target {
        var value = 0
        var text = ""
    }

    // MARK: sink

    @Test("sink(receiveCompletion:receiveValue:) hands over every value, then the completion")
    func sinkBothClosures() {
        var values: [Int] = []
        var completions: [Subscribers.Completion<TestError>] = []
        let subject = PassthroughSubject<Int, TestError>()
        let cancellable = subject.sink(receiveCompletion: { completions.append($0) }, receiveValue: { values.append($0) })
        subject.send(1)
        subject.send(2)
        subject.send(completion: .failure(.boom))
        subject.send(3)
        #expect(values == [1, 2])
        #expect(completions == [.failure(.boom)])
        withExtendedLifetime(cancellable) {}
    }

    @Test("sink(receiveValue:) takes every value of a publisher that cannot fail")
    func sinkValuesOnly() {
        var values: [Int] = []
        let cancellable = (1...3).publisher.sink { values.append($0) }
        #expect(values == [1, 2, 3])
        withExtendedLifetime(cancellable) {}
    }

    @Test("a sink asks for unlimited values once, and cancelling it cancels upstream")
    func sinkDemandAndCancel() {
        let upstream = TestPublisher<Int, Never>()
        var values: [Int] = []
        let cancellable = upstream.sink { values.append($0) }
        #expect(upstream.requests == [.unlimited])
        upstream.send(1)
        #expect(values == [1])
        cancellable.cancel()
        #expect(upstream.cancelCount == 1)
    }

    @Test("a Sink keeps its first subscription and cancels a second one")
    func sinkRefusesSecondSubscription() {
        let first = TestPublisher<Int, Never>()
        let second = TestPublisher<Int, Never>()
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        first.subscribe(sink)
        second.subscribe(sink)
        #expect(first.cancelCount == 0)
        #expect(second.cancelCount == 1)
        #expect(second.requests.isEmpty)
        sink.cancel()
        #expect(first.cancelCount == 1)
        #expect(sink.description == "Sink")
    }

    // MARK: assign

    @Test("assign(to:on:) writes each value to the property")
    func assign() {
        let target = Target()
        let subject = PassthroughSubject<String, Never>()
        let cancellable = subject.assign(to: \.text, on: target)
        subject.send("a")
        #expect(target.text == "a")
        subject.send("b")
        #expect(target.text == "b")
        cancellable.cancel()
        subject.send("c")
        #expect(target.text == "b")
    }

    @Test("Assign holds its object until completion or cancel, and keeps its first subscription only")
    func assignLifetime() {
        let target = Target()
        let first = TestPublisher<Int, Never>()
        let second = TestPublisher<Int, Never>()
        let assign = Subscribers.Assign(object: target, keyPath: \Target.value)
        first.subscribe(assign)
        second.subscribe(assign)
        #expect(first.requests == [.unlimited])
        #expect(second.cancelCount == 1)
        first.send(4)
        #expect(target.value == 4)
        #expect(assign.object === target)
        first.send(completion: .finished)
        #expect(assign.object == nil)
        first.send(5)
        #expect(target.value == 4)
        #expect(assign.keyPath == \Target.value)
    }

    // MARK: AnyCancellable

    @Test("AnyCancellable cancels when it is deinitialised")
    func anyCancellableDeinit() {
        let upstream = TestPublisher<Int, Never>()
        var runs = 0
        do {
            _ = upstream.sink { _ in }
            let closure = AnyCancellable { runs += 1 }
            _ = closure
        }
        #expect(upstream.cancelCount == 1)
        #expect(runs == 1)
    }

    @Test("AnyCancellable runs its action once, however often it is cancelled")
    func anyCancellableOnce() {
        var runs = 0
        var cancellable: AnyCancellable? = AnyCancellable { runs += 1 }
        cancellable?.cancel()
        cancellable?.cancel()
        cancellable = nil
        #expect(runs == 1)
    }

    @Test("AnyCancellable wraps any Cancellable, and an AnyCancellable without a second layer")
    func anyCancellableWrapping() {
        let upstream = TestPublisher<Int, Never>()
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        upstream.subscribe(sink)
        let wrapped = AnyCancellable(sink)
        var runs = 0
        let inner = AnyCancellable { runs += 1 }
        let outer = AnyCancellable(inner)
        outer.cancel()
        inner.cancel()
        wrapped.cancel()
        #expect(runs == 1)
        #expect(upstream.cancelCount == 1)
    }

    @Test("store(in:) keeps cancellables in a set or an array, alive until the collection lets go")
    func storeIn() {
        let setUpstream = TestPublisher<Int, Never>()
        let arrayUpstream = TestPublisher<Int, Never>()
        var set = Set<AnyCancellable>()
        var array: [AnyCancellable] = []
        setUpstream.sink { _ in }.store(in: &set)
        arrayUpstream.sink { _ in }.store(in: &array)
        let otherUpstream = TestPublisher<Int, Never>()
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        otherUpstream.subscribe(sink)
        sink.store(in: &set)  // any Cancellable can be stored, type-erased
        #expect(set.count == 2)
        #expect(array.count == 1)
        #expect(setUpstream.cancelCount == 0)
        #expect(arrayUpstream.cancelCount == 0)
        set.removeAll()
        #expect(setUpstream.cancelCount == 1)
        #expect(otherUpstream.cancelCount == 1)
        #expect(arrayUpstream.cancelCount == 0)
        array.removeAll()
        #expect(arrayUpstream.cancelCount == 1)
    }

    @Test("AnyCancellables are equal only to themselves")
    func anyCancellableIdentity() {
        let first = AnyCancellable {}
        let second = AnyCancellable {}
        #expect(first == first)
        #expect(first != second)
        #expect(Set([first, first, second]).count == 2)
    }
}
