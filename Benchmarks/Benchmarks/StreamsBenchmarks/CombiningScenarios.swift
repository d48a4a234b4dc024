import Benchmark
import Streams

/// S4: zip, combineLatest and merge of two subjects, 1,000,000 values, against a loop doing the
/// same pairing by hand.
func registerCombiningScenarios() {
    let count = 1_000_000
    // 30 iterations, 10 in each of three rounds, with time for them: S4 is divided by S3's send,
    // and few samples let one disturbed iteration move a round's ratio.
    let configuration = Benchmark.Configuration(scalingFactor: .one, maxDuration: .seconds(3), maxIterations: 30)
    Benchmark("S4-zip Streams", configuration: configuration) { benchmark in
        let left = PassthroughSubject<Int, Never>()
        let right = PassthroughSubject<Int, Never>()
        var sum = 0
        let cancellable = left.zip(right).sink { sum &+= $0.0 &+ $0.1 }
        benchmark.startMeasurement()
        for value in 0..<(count / 2) {
            left.send(value)
            right.send(value)
        }
        benchmark.stopMeasurement()
        blackHole(sum)
        withExtendedLifetime(cancellable) {}
    }
    Benchmark("S4-combineLatest Streams", configuration: configuration) { benchmark in
        let left = PassthroughSubject<Int, Never>()
        let right = PassthroughSubject<Int, Never>()
        var sum = 0
        let cancellable = left.combineLatest(right).sink { sum &+= $0.0 &+ $0.1 }
        benchmark.startMeasurement()
        for value in 0..<(count / 2) {
            left.send(value)
            right.send(value)
        }
        benchmark.stopMeasurement()
        blackHole(sum)
        withExtendedLifetime(cancellable) {}
    }
    Benchmark("S4-merge Streams", configuration: configuration) { benchmark in
        let left = PassthroughSubject<Int, Never>()
        let right = PassthroughSubject<Int, Never>()
        var sum = 0
        let cancellable = left.merge(with: right).sink { sum &+= $0 }
        benchmark.startMeasurement()
        for value in 0..<(count / 2) {
            left.send(value)
            right.send(value)
        }
        benchmark.stopMeasurement()
        blackHole(sum)
        withExtendedLifetime(cancellable) {}
    }
    // The hand-written loop: queue each side's values and pair them, as zip must.
    Benchmark("S4 loop", configuration: configuration) { benchmark in
        var leftQueue: [Int] = []
        var rightQueue: [Int] = []
        var sum = 0
        benchmark.startMeasurement()
        for value in 0..<(count / 2) {
            leftQueue.append(value)
            rightQueue.append(value)
            while let first = leftQueue.first, let second = rightQueue.first {
                sum &+= first &+ second
                leftQueue.removeFirst()
                rightQueue.removeFirst()
            }
        }
        benchmark.stopMeasurement()
        blackHole(sum)
    }
}
