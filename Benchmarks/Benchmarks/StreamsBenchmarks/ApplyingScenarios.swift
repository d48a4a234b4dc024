import Benchmark
import Streams

/// A view model with a little work in its initialiser, as real ones have.
struct RowViewModel {
    let id: Int
    let title: String
    init(_ value: Int) {
        id = value
        title = "Row \(value)"
    }
}

final class Board {
    @Published var rows: [RowViewModel] = []
}

func registerApplyingScenarios() {
    let size = 100_000
    let source = Array(0..<size)
    // C3: k changes (updates in place, spread out) applied to N = 100,000 view models.
    for changes in [1, 100, 10_000] {
        let stride = size / changes
        let difference = CollectionDifference<Int>(
            (0..<changes).map { CollectionDifference<Int>.Change.remove(offset: $0 * stride, element: $0 * stride, associatedWith: nil) }
                + (0..<changes).map { .insert(offset: $0 * stride, element: $0 * stride, associatedWith: nil) })!
        Benchmark("C3-\(changes) Streams", configuration: .init(scalingFactor: .one, maxIterations: 50)) { benchmark in
            let board = Board()
            board.rows = source.map(RowViewModel.init)
            let differences = PassthroughSubject<CollectionDifference<Int>, Never>()
            let cancellable = board.$rows.applyingChanges(differences) { RowViewModel($0) }
                .sink { board.rows = $0 }
            benchmark.startMeasurement()
            differences.send(difference)
            benchmark.stopMeasurement()
            blackHole(board.rows.count)
            withExtendedLifetime(cancellable) {}
        }
        // The same changes applied to the property in place: nothing subscribes to `$rows`, so
        // `@Published` mutates its array without copying it.
        Benchmark("C3-\(changes) in place", configuration: .init(scalingFactor: .one, maxIterations: 50)) { benchmark in
            let board = Board()
            board.rows = source.map(RowViewModel.init)
            let differences = PassthroughSubject<CollectionDifference<Int>, Never>()
            let cancellable = differences.sink { difference in try! board.rows.apply(difference) { RowViewModel($0) } }
            benchmark.startMeasurement()
            differences.send(difference)
            benchmark.stopMeasurement()
            blackHole(board.rows.count)
            withExtendedLifetime(cancellable) {}
        }
        Benchmark("C3-\(changes) rebuild", configuration: .init(scalingFactor: .one, maxIterations: 50)) { benchmark in
            let board = Board()
            board.rows = source.map(RowViewModel.init)
            benchmark.startMeasurement()
            board.rows = source.map(RowViewModel.init)
            benchmark.stopMeasurement()
            blackHole(board.rows.count)
        }
    }
}
