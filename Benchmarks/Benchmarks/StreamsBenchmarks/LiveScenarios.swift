import Benchmark
import Dispatch
import Foundation
import ObjectGraph
import Streams

/// The model the C and D scenarios use.
final class Row: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var rank: Int = 0
}

let rowModel = try! ObjectModel(entities: [Row.self])

/// A container with `count` saved rows, its view context on a queue of its own.
func makeContainer(rows count: Int, store: StoreKind = .inMemory) -> PersistentContainer {
    let container = try! PersistentContainer(model: rowModel, store: store, viewContextQueue: DispatchQueue(label: "bench.view"))
    let view = container.viewContext
    view.performAndWait {
        for index in 0..<count {
            let row = Row(context: view)
            row.name = "row \(index)"
            row.rank = index
        }
        try! view.save()
    }
    return container
}

let byRank = FetchRequest<Row>(sortBy: [SortDescriptor(\.rank)])

/// On the view context's queue: renames one of the `size` rows and saves, once to warm up, then
/// `saves` times measured. `beforeEach` runs before each save (an observer arming itself again).
func measureRenames(in view: ManagedObjectContext, rows size: Int, saves: Int, benchmark: Benchmark, beforeEach: () -> Void = {}) {
    view.performAndWait {
        let rows = try! view.fetch(byRank)
        rows[size / 2].name = "warm-up"
        try! view.save()
        benchmark.startMeasurement()
        for step in 0..<saves {
            beforeEach()
            rows[(step * 7_919) % size].name = "renamed \(step)"
            try! view.save()
        }
        benchmark.stopMeasurement()
        // Otherwise `rows` may be released (100,000 releases) before the measurement stops.
        withExtendedLifetime(rows) {}
    }
}

func registerLiveScenarios() {
    // C1: one object updated per save; time from save() to the difference delivered.
    for size in [1_000, 10_000, 100_000] {
        // Ours makes 100 saves after one warm-up save (the first save after setup pays one-off
        // costs: freeing the setup's temporaries); the naive side makes 10 at 100,000 (each costs
        // a whole re-fetch). The report compares per save.
        let saves = 100
        // At 100,000 the setup takes most of the default time budget: allow it several samples.
        let budget: Duration = size == 100_000 ? .seconds(30) : .seconds(3)
        Benchmark("C1-\(size) Streams", configuration: .init(scalingFactor: .one, maxDuration: budget, maxIterations: 10)) { benchmark in
            let container = makeContainer(rows: size)
            let view = container.viewContext
            var delivered = 0
            let cancellable = view.changesPublisher(for: byRank).sink(receiveCompletion: { _ in }, receiveValue: { _ in delivered += 1 })
            measureRenames(in: view, rows: size, saves: saves, benchmark: benchmark)
            precondition(delivered == saves + 2, "every save must deliver one difference")
            withExtendedLifetime(cancellable) {}
        }
        Benchmark("C1-\(size) naive", configuration: .init(scalingFactor: .one, maxIterations: 5)) { benchmark in
            let container = makeContainer(rows: size)
            let view = container.viewContext
            var delivered = 0
            view.performAndWait {
                let rows = try! view.fetch(byRank)
                var shown = rows
                let saves = size == 100_000 ? 10 : 100
                let cancellable = view.objectsDidChange.sink { _ in
                    let fresh = try! view.fetch(byRank)
                    blackHole(fresh.difference(from: shown))
                    shown = fresh
                    delivered += 1
                }
                benchmark.startMeasurement()
                for step in 0..<saves {
                    rows[(step * 7_919) % size].name = "renamed \(step)"
                    try! view.save()
                }
                benchmark.stopMeasurement()
                withExtendedLifetime(cancellable) {}
            }
            blackHole(delivered)
        }
    }

    // C2: saves while demand is zero, then one request: one difference, memory bounded.
    for saves in [1_000, 10_000] {
        Benchmark("C2-\(saves) Streams", configuration: .init(scalingFactor: .one, maxIterations: 3)) { benchmark in
            let container = makeContainer(rows: 1_000)
            let view = container.viewContext
            let subscriber = DemandDriven()
            view.changesPublisher(for: byRank).subscribe(subscriber)
            view.performAndWait {
                let rows = try! view.fetch(byRank)
                subscriber.request(.max(1))  // the initial state
                benchmark.startMeasurement()
                for step in 0..<saves {
                    rows[(step * 7_919) % rows.count].rank = (step * 31) % 5_000
                    try! view.save()
                }
                subscriber.request(.max(1))
                benchmark.stopMeasurement()
            }
            precondition(subscriber.received == 2, "one coalesced difference after the initial state")
        }
    }
}

/// A subscriber that asks only when told to.
final class DemandDriven: Streams.Subscriber {
    typealias Input = CollectionDifference<Row>
    typealias Failure = ObjectGraphError
    private var subscription: (any Streams.Subscription)?
    var received = 0

    func receive(subscription: any Streams.Subscription) { self.subscription = subscription }
    func receive(_ input: CollectionDifference<Row>) -> Streams.Subscribers.Demand {
        received += 1
        return .none
    }
    func receive(completion: Streams.Subscribers.Completion<ObjectGraphError>) {}
    func request(_ demand: Streams.Subscribers.Demand) { subscription?.request(demand) }
}
