import Benchmark
import OpenCombine
import Streams

/// The values each S-scenario pushes through.
let streamCount = 1_000_000

@inline(never) func double(_ value: Int) -> Int { value &* 2 }
@inline(never) func keep(_ value: Int) -> Bool { value % 3 != 0 }
@inline(never) func increment(_ value: Int) -> Int { value &+ 1 }
@inline(never) func triple(_ value: Int) -> Int { value &* 3 }

func registerStreamsScenarios() {
    // S1: Sequence.publisher → map → filter → sink, unlimited demand.
    Benchmark("S1 Streams") { benchmark in
        for _ in benchmark.scaledIterations {
            var sum = 0
            let cancellable = Streams.Publishers.Sequence<Range<Int>, Never>(sequence: 0..<streamCount).map(double).filter(keep).sink { sum &+= $0 }
            blackHole(sum)
            withExtendedLifetime(cancellable) {}
        }
    }
    Benchmark("S1 OpenCombine") { benchmark in
        for _ in benchmark.scaledIterations {
            var sum = 0
            let cancellable = OpenCombine.Publishers.Sequence<Range<Int>, Never>(sequence: 0..<streamCount)
                .map(double).filter(keep).sink { sum &+= $0 }
            blackHole(sum)
            withExtendedLifetime(cancellable) {}
        }
    }
    Benchmark("S1 loop") { benchmark in
        for _ in benchmark.scaledIterations {
            var sum = 0
            for value in 0..<streamCount {
                let doubled = double(value)
                if keep(doubled) { sum &+= doubled }
            }
            blackHole(sum)
        }
    }

    // S2: S1 with a subscriber that requests .max(1) from inside each receive(_:).
    Benchmark("S2 Streams") { benchmark in
        for _ in benchmark.scaledIterations {
            let subscriber = OneAtATime()
            Streams.Publishers.Sequence<Range<Int>, Never>(sequence: 0..<streamCount).map(double).filter(keep).subscribe(subscriber)
            blackHole(subscriber.sum)
        }
    }
    Benchmark("S2 OpenCombine") { benchmark in
        for _ in benchmark.scaledIterations {
            let subscriber = OpenCombineOneAtATime()
            OpenCombine.Publishers.Sequence<Range<Int>, Never>(sequence: 0..<streamCount)
                .map(double).filter(keep).subscribe(subscriber)
            blackHole(subscriber.sum)
        }
    }

    // S5: map → map → filter → map → sink over a Record of 1,000,000 values. Not over a
    // Publishers.Sequence: its operators run eagerly, as Combine's do, so the chain would never
    // see a value. The recording is made once, outside the measurement; both sides get the
    // same chain of the same functions.
    let recorded = Array(0..<streamCount)
    Benchmark("S5 Streams") { benchmark in
        for _ in benchmark.scaledIterations {
            var sum = 0
            let cancellable = Streams.Record<Int, Never>(output: recorded, completion: .finished)
                .map(double).map(increment).filter(keep).map(triple).sink { sum &+= $0 }
            blackHole(sum)
            withExtendedLifetime(cancellable) {}
        }
    }
    Benchmark("S5 OpenCombine") { benchmark in
        for _ in benchmark.scaledIterations {
            var sum = 0
            let cancellable = OpenCombine.Record<Int, Never>(output: recorded, completion: .finished)
                .map(double).map(increment).filter(keep).map(triple).sink { sum &+= $0 }
            blackHole(sum)
            withExtendedLifetime(cancellable) {}
        }
    }
    Benchmark("S5 loop") { benchmark in
        for _ in benchmark.scaledIterations {
            var sum = 0
            for value in recorded {
                let incremented = increment(double(value))
                if keep(incremented) { sum &+= triple(incremented) }
            }
            blackHole(sum)
        }
    }

    // S3: PassthroughSubject.send to 1, 10 and 100 sinks.
    for sinkCount in [1, 10, 100] {
        let sends = streamCount / sinkCount
        Benchmark("S3-\(sinkCount) Streams", configuration: .init(scalingFactor: .one)) { benchmark in
            let subject = Streams.PassthroughSubject<Int, Never>()
            var sum = 0
            let cancellables = (0..<sinkCount).map { _ in subject.sink { sum &+= $0 } }
            benchmark.startMeasurement()
            for value in 0..<sends { subject.send(value) }
            benchmark.stopMeasurement()
            blackHole(sum)
            withExtendedLifetime(cancellables) {}
        }
        Benchmark("S3-\(sinkCount) OpenCombine", configuration: .init(scalingFactor: .one)) { benchmark in
            let subject = OpenCombine.PassthroughSubject<Int, Never>()
            var sum = 0
            let cancellables = (0..<sinkCount).map { _ in subject.sink { sum &+= $0 } }
            benchmark.startMeasurement()
            for value in 0..<sends { subject.send(value) }
            benchmark.stopMeasurement()
            blackHole(sum)
            withExtendedLifetime(cancellables) {}
        }
    }
}

/// Requests one value at a time from inside receive(_:).
final class OneAtATime: Streams.Subscriber {
    typealias Input = Int
    typealias Failure = Never
    var sum = 0
    var subscription: (any Streams.Subscription)?
    func receive(subscription: any Streams.Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }
    func receive(_ input: Int) -> Streams.Subscribers.Demand {
        sum &+= input
        subscription?.request(.max(1))
        return .none
    }
    func receive(completion: Streams.Subscribers.Completion<Never>) { subscription = nil }
}

final class OpenCombineOneAtATime: OpenCombine.Subscriber {
    typealias Input = Int
    typealias Failure = Never
    var sum = 0
    var subscription: (any OpenCombine.Subscription)?
    let combineIdentifier = OpenCombine.CombineIdentifier()
    func receive(subscription: any OpenCombine.Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }
    func receive(_ input: Int) -> OpenCombine.Subscribers.Demand {
        sum &+= input
        subscription?.request(.max(1))
        return .none
    }
    func receive(completion: OpenCombine.Subscribers.Completion<Never>) { subscription = nil }
}
