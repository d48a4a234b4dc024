import Benchmark
import Dispatch
import Foundation
import Observation
import ObjectGraph
import Streams

/// Counts Observation's change callbacks, which arrive on the thread that mutates.
final class ChangeCount: @unchecked Sendable {  // `lock` protects `value`
    private let lock = NSLock()
    private var value = 0

    func increment() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}

/// A gate an async consumer waits at until the benchmark opens it.
final class Gate: @unchecked Sendable {  // `lock` protects `isOpen` and `waiter`
    private let lock = NSLock()
    private var isOpen = false
    private var waiter: CheckedContinuation<Void, Never>?

    func wait() async {
        await withCheckedContinuation { continuation in
            let openNow = lock.withLock {
                if isOpen { return true }
                waiter = continuation
                return false
            }
            if openNow { continuation.resume() }
        }
    }

    func open() {
        let waiter = lock.withLock {
            isOpen = true
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume()
    }
}

func registerObservationScenarios() {
    // V1: one save updating one row of an observable live result mapped to view models, from
    // save() to the observer's change; against changesPublisher + apply in place.
    for size in [1_000, 100_000] {
        let saves = 100
        let budget: Duration = size == 100_000 ? .seconds(30) : .seconds(3)
        Benchmark("V1-\(size) Streams", configuration: .init(scalingFactor: .one, maxDuration: budget, maxIterations: 10)) { benchmark in
            let container = makeContainer(rows: size)
            let view = container.viewContext
            let changes = ChangeCount()
            // Made, read and released on the view context's queue only.
            nonisolated(unsafe) let live = view.performAndWait { view.observableResults(for: byRank) { RowViewModel($0.rank) } }
            let observe = {
                withObservationTracking { _ = live.elements.count } onChange: { changes.increment() }
            }
            view.performAndWait(observe)  // armed for the warm-up save
            measureRenames(in: view, rows: size, saves: saves, benchmark: benchmark, beforeEach: observe)
            view.performAndWait {
                precondition(live.elements.count == size)
                withExtendedLifetime(live) {}
            }
            precondition(changes.count == saves + 1, "every save must change the results once")
        }
        Benchmark("V1-\(size) changesPublisher", configuration: .init(scalingFactor: .one, maxDuration: budget, maxIterations: 10)) { benchmark in
            let container = makeContainer(rows: size)
            let view = container.viewContext
            let board = Board()
            var delivered = 0
            let cancellable = view.changesPublisher(for: byRank).sink(receiveCompletion: { _ in }, receiveValue: { difference in
                try! board.rows.apply(difference) { RowViewModel($0.rank) }
                delivered += 1
            })
            measureRenames(in: view, rows: size, saves: saves, benchmark: benchmark)
            precondition(delivered == saves + 2 && board.rows.count == size)
            withExtendedLifetime(cancellable) {}
        }
    }

    // V2: changes(for:) consumed by a for-await loop; saves while the consumer is suspended
    // elsewhere, then one next(): one coalesced difference, memory bounded.
    for saves in [1_000, 10_000] {
        Benchmark("V2-\(saves) Streams", configuration: .init(scalingFactor: .one, maxIterations: 3)) { benchmark in
            let container = makeContainer(rows: 1_000)
            let view = container.viewContext
            let rows = view.performAndWait { try! view.fetch(byRank) }
            let received = ChangeCount()
            let ready = DispatchSemaphore(value: 0)
            let gate = Gate()
            let consumer = Task.detached {
                var differences = 0
                for try await _ in view.changes(for: byRank) {
                    differences += 1
                    received.increment()
                    ready.signal()
                    if differences == 2 { break }
                    await gate.wait()
                }
            }
            ready.wait()  // the initial state
            benchmark.startMeasurement()
            view.performAndWait {
                for step in 0..<saves {
                    rows[(step * 7_919) % rows.count].rank = (step * 31) % 5_000
                    try! view.save()
                }
            }
            gate.open()
            ready.wait()
            benchmark.stopMeasurement()
            precondition(received.count == 2, "one coalesced difference after the initial state")
            withExtendedLifetime(consumer) {}
        }
    }
}
