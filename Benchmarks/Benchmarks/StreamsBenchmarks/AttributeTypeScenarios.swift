import Benchmark
import Dispatch
import Foundation
import ObjectGraph

/// T1's enum: stored as its Int raw value.
enum Shade: Int, Codable, CaseIterable {
    case red, orange, yellow, green, blue, indigo, violet
}

/// T1's small Codable value: stored as JSON text.
struct Size: Codable, Equatable {
    var width: Int
    var height: Int
}

/// T1: an object with an enum and a small Codable attribute …
final class TypedRow: ManagedObject {
    @Attribute var rank: Int = 0
    @Attribute var shade: Shade = .red
    @Attribute var size = Size(width: 0, height: 0)
}

/// … and the same columns declared as the raw Int and String they hold.
final class PlainRow: ManagedObject {
    @Attribute var rank: Int = 0
    @Attribute var shade: Int = 0
    @Attribute var size: String = ""
}

let attributeTypesModel = try! ObjectModel(entities: [TypedRow.self, PlainRow.self])

/// One file with 100,000 rows of each entity, written once per run, the JSON of each size the
/// same text in both.
let attributeTypesStoreURL: URL = {
    let url = freshDatabaseURL()
    let container = try! PersistentContainer(model: attributeTypesModel, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.view"))
    let context = container.newBackgroundContext()
    context.performAndWait {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for index in 0..<storeRowCount {
            let shade = Shade.allCases[index % Shade.allCases.count]
            let size = Size(width: index % 1_000, height: index / 1_000)
            let typed = TypedRow(context: context)
            typed.rank = index
            typed.shade = shade
            typed.size = size
            let plain = PlainRow(context: context)
            plain.rank = index
            plain.shade = shade.rawValue
            plain.size = String(decoding: try! encoder.encode(size), as: UTF8.self)
        }
        try! context.save()
    }
    return url
}()

func registerAttributeTypeScenarios() {
    // T1: fetch 100,000 objects and read an enum and a small Codable attribute of each, against
    // the same with raw Int and String columns; and the fetch alone.
    fetchScenario("T1 Streams", TypedRow.self) { $0.shade.rawValue &+ $0.size.width }
    fetchScenario("T1 raw columns", PlainRow.self) { $0.shade &+ $0.size.utf8.count }
    fetchScenario("T1fetch Streams", TypedRow.self, read: nil)
    fetchScenario("T1fetch raw columns", PlainRow.self, read: nil)
}

/// Measures a fetch of every `Row` of the T1 file in a new container (nothing registered,
/// nothing cached), and `read` of each fetched object if given.
private func fetchScenario<Row: ManagedObject>(_ name: String, _ type: Row.Type, read: ((Row) -> Int)?) {
    Benchmark(name, configuration: .init(scalingFactor: .one, maxDuration: storeBudget, maxIterations: 15)) { benchmark in
        let container = try! PersistentContainer(model: attributeTypesModel, storeURL: attributeTypesStoreURL, viewContextQueue: DispatchQueue(label: "bench.view"))
        let context = container.newBackgroundContext()
        context.performAndWait {
            benchmark.startMeasurement()
            let rows = try! context.fetch(FetchRequest<Row>())
            var total = 0
            if let read {
                for row in rows { total &+= read(row) }
            }
            benchmark.stopMeasurement()
            precondition(rows.count == storeRowCount)
            blackHole(total)
            blackHole(rows)
        }
    }
}
