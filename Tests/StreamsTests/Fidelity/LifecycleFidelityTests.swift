import Streams
import StreamsTesting
import Testing

/// The lifecycle a Combine user relies on: what `sink` and `assign` hold on to after the
/// stream ends, and `objectWillChange` of an object without `@Published` properties.
@Suite("Combine fidelity: lifecycle of sinks, assign and objectWillChange")
struct LifecycleFidelityTests {
    /// A view model in the everyday shape: it keeps its cancellables, and its sink captures it.
    final class ViewModel {
        var cancellables = Set<AnyCancellable>()
        var received: [Int] = []
        var finished = false
    }

    @Test("sink(...).store(in:) releases its closures when the stream finishes, so self is not kept alive")
    func sinkReleasesOnCompletion() {
        weak var weakModel: ViewModel?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let model = ViewModel()
            weakModel = model
            subject
                .sink(receiveCompletion: { _ in model.finished = true }, receiveValue: { model.received.append($0) })
                .store(in: &model.cancellables)
            subject.send(1)
            subject.send(completion: .finished)
            #expect(model.received == [1])
            #expect(model.finished)
        }
        #expect(weakModel == nil)
    }

    @Test("sink(...).store(in:) on a synchronous publisher that finishes at once keeps nothing alive")
    func sinkReleasesOnImmediateCompletion() {
        weak var weakModel: ViewModel?
        do {
            let model = ViewModel()
            weakModel = model
            [1, 2, 3].publisher.sink { model.received.append($0) }.store(in: &model.cancellables)
            #expect(model.received == [1, 2, 3])
        }
        #expect(weakModel == nil)
    }

    @Test("a cancelled sink lets go of its closures, even while its cancellable is still stored")
    func sinkReleasesOnCancel() {
        weak var weakModel: ViewModel?
        let subject = PassthroughSubject<Int, Never>()
        var kept: [AnyCancellable] = []
        do {
            let model = ViewModel()
            weakModel = model
            let cancellable = subject.sink { model.received.append($0) }
            kept.append(cancellable)
            subject.send(1)
            cancellable.cancel()
            subject.send(2)
            #expect(model.received == [1])
        }
        #expect(weakModel == nil)
        #expect(kept.count == 1)
    }

    @Test("a cancelled sink calls neither closure again, even if upstream goes on sending, as Combine's")
    func cancelledSinkIsSilent() {
        final class Received: @unchecked Sendable {  // used from one thread
            var values: [Int] = []
            var completions = 0
        }
        let received = Received()
        let upstream = TestPublisher<Int, TestError>()
        let sink = Subscribers.Sink<Int, TestError>(
            receiveCompletion: { _ in received.completions += 1 }, receiveValue: { received.values.append($0) })
        upstream.subscribe(sink)
        upstream.send(1)
        sink.cancel()
        #expect(upstream.cancelCount == 1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(received.values == [1])
        #expect(received.completions == 0)

        // The same through the cancellable `sink` returns.
        let other = TestPublisher<Int, TestError>()
        let cancellable = other.sink(receiveCompletion: { _ in received.completions += 1 }, receiveValue: { received.values.append($0) })
        other.send(3)
        cancellable.cancel()
        other.send(4)
        other.send(completion: .failure(.boom))
        #expect(received.values == [1, 3])
        #expect(received.completions == 0)
    }

    @Test("a Subscribers.Sink you hold yourself keeps its closures until you let it go (a listed difference)")
    func heldSinkKeepsClosures() {
        final class Marker {}
        weak var weakMarker: Marker?
        var sink: Subscribers.Sink<Int, Never>?
        do {
            let marker = Marker()
            weakMarker = marker
            sink = Subscribers.Sink(receiveCompletion: { _ in withExtendedLifetime(marker) {} }, receiveValue: { _ in withExtendedLifetime(marker) {} })
            Just(1).subscribe(sink!)
        }
        #expect(weakMarker != nil)
        sink = nil
        #expect(weakMarker == nil)
    }

    @Test("assign(to:on:) lets go of its object when the stream finishes")
    func assignReleasesOnCompletion() {
        final class Target {
            var value = 0
        }
        weak var weakTarget: Target?
        var cancellables = Set<AnyCancellable>()
        let subject = PassthroughSubject<Int, Never>()
        do {
            let target = Target()
            weakTarget = target
            subject.assign(to: \.value, on: target).store(in: &cancellables)
            subject.send(5)
            #expect(target.value == 5)
            subject.send(completion: .finished)
        }
        #expect(weakTarget == nil)
        #expect(cancellables.count == 1)
    }

    final class Thermostat: ObservableObject {
        var temperature = 20 {
            willSet { objectWillChange.send() }
        }
    }

    @Test("objectWillChange of an object without @Published properties is one publisher, so willSet reaches subscribers")
    func objectWillChangeWithoutPublished() {
        let thermostat = Thermostat()
        #expect(thermostat.objectWillChange === thermostat.objectWillChange)
        var changes = 0
        let cancellable = thermostat.objectWillChange.sink { changes += 1 }
        thermostat.temperature = 21
        thermostat.temperature = 22
        #expect(changes == 2)
        withExtendedLifetime(cancellable) {}
        let other = Thermostat()
        #expect(other.objectWillChange !== thermostat.objectWillChange)
    }

    @Test("the publisher of an object without @Published properties goes when the object goes")
    func objectWillChangeIsReleased() {
        weak var weakPublisher: ObservableObjectPublisher?
        do {
            let thermostat = Thermostat()
            weakPublisher = thermostat.objectWillChange
            #expect(weakPublisher != nil)
        }
        // Entries of dead objects are swept as the table grows; other tests running at the same
        // time may have grown it, so grow it until a sweep comes (within a bound).
        for _ in 0..<10_000 where weakPublisher != nil { _ = Thermostat().objectWillChange }
        #expect(weakPublisher == nil)
    }
}
