import Benchmark
import Dispatch
import Foundation
import GRDB
import ObjectGraph

/// The store sizes of Q7: opening must cost the same at each.
let launchSizes = [30_000, 300_000, 1_000_000]
/// How many launches (open + one query + close) one Q7 iteration runs.
let launches = 10

extension Profile {
    /// Computed, so a predicate that reads it is evaluated in memory (Q8's fallback row).
    var rankIsEven: Bool { rank % 2 == 0 }
}

func registerLaunchScenarios() {
    let configuration = Benchmark.Configuration(scalingFactor: .one, maxDuration: .seconds(6), maxIterations: 30)

    // Q7: an app launch — open a container on a store of N profiles and run Q1 — against GRDB
    // opening a queue on the same rows and running the same query.
    for count in launchSizes {
        Benchmark("Q7-\(count) Streams", configuration: configuration) { benchmark in
            let url = objectGraphProfileStore(count: count)
            let name = sampleUsernames(1, of: count)[0]
            benchmark.startMeasurement()
            for _ in 0..<launches {
                let container = try! PersistentContainer(model: profileModel, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.launch"))
                let found = try! container.viewContext.performAndWait {
                    try container.viewContext.fetch(ObjectGraph.FetchRequest<Profile>(predicate: #Predicate { $0.username == name }))
                }
                precondition(found.count == 1)
                container.close()
            }
            benchmark.stopMeasurement()
        }
        Benchmark("Q7-\(count) GRDB", configuration: configuration) { benchmark in
            let path = rawProfileStore(count: count).path
            let name = sampleUsernames(1, of: count)[0]
            benchmark.startMeasurement()
            for _ in 0..<launches {
                let queue = try! DatabaseQueue(path: path)
                let found = try! queue.read { db in try ProfileRecord.filter(Column("username") == name).fetchAll(db) }
                precondition(found.count == 1)
                try! queue.close()
            }
            benchmark.stopMeasurement()
        }
    }

    // Q8: predicates as people write them, at 300,000 profiles with the compound index on
    // (city, rank): a threshold computed in the predicate (`limit / 10`, `limit % 70_001`)
    // against the same query with the value computed by hand, and against GRDB.
    let count = queryStoreSize
    let limit = count
    let byHandDivision = limit / 10
    let byHandRemainder = limit % 70_001
    func q8(_ name: String, _ makeRequest: @escaping @Sendable (String) -> ObjectGraph.FetchRequest<Profile>) {
        Benchmark("Q8\(name) Streams", configuration: configuration) { benchmark in
            let profiles = ObjectGraphProfiles.shared(count)
            profiles.context.performAndWait {
                benchmark.startMeasurement()
                for query in 0..<compoundQueries {
                    blackHole(try! profiles.context.fetch(makeRequest("city\(query % 100)")))
                }
                benchmark.stopMeasurement()
            }
        }
    }
    q8("a") { (city: String) -> ObjectGraph.FetchRequest<Profile> in ObjectGraph.FetchRequest(predicate: #Predicate<Profile> { $0.city == city && $0.rank < limit / 10 }) }
    q8("a-folded") { (city: String) -> ObjectGraph.FetchRequest<Profile> in ObjectGraph.FetchRequest(predicate: #Predicate<Profile> { $0.city == city && $0.rank < byHandDivision }) }
    q8("b") { (city: String) -> ObjectGraph.FetchRequest<Profile> in ObjectGraph.FetchRequest(predicate: #Predicate<Profile> { $0.city == city && $0.rank < limit % 70_001 }) }
    q8("b-folded") { (city: String) -> ObjectGraph.FetchRequest<Profile> in ObjectGraph.FetchRequest(predicate: #Predicate<Profile> { $0.city == city && $0.rank < byHandRemainder }) }
    // Arithmetic on the property runs in SQL too (GRDB writes it in SQL).
    q8("c") { (city: String) -> ObjectGraph.FetchRequest<Profile> in ObjectGraph.FetchRequest(predicate: #Predicate<Profile> { $0.city == city && $0.rank % 10 == 0 }) }
    // What still falls back: a computed property, evaluated in memory on the rows `city == X`
    // narrows down, against fetching those rows alone.
    q8("d") { (city: String) -> ObjectGraph.FetchRequest<Profile> in ObjectGraph.FetchRequest(predicate: #Predicate<Profile> { $0.city == city && $0.rankIsEven }) }
    q8("d-plain") { (city: String) -> ObjectGraph.FetchRequest<Profile> in ObjectGraph.FetchRequest(predicate: #Predicate<Profile> { $0.city == city }) }

    func grdb(_ name: String, _ filter: @escaping @Sendable (String) -> SQLExpression) {
        Benchmark("Q8\(name) GRDB", configuration: configuration) { benchmark in
            let queue = grdbBase
            benchmark.startMeasurement()
            for query in 0..<compoundQueries {
                let city = "city\(query % 100)"
                blackHole(try! queue.read { db in try ProfileRecord.filter(filter(city)).fetchAll(db) })
            }
            benchmark.stopMeasurement()
        }
    }
    grdb("a") { (city: String) -> SQLExpression in Column("city") == city && Column("rank") < limit / 10 }
    grdb("b") { (city: String) -> SQLExpression in Column("city") == city && Column("rank") < limit % 70_001 }
    Benchmark("Q8c GRDB", configuration: configuration) { benchmark in
        let queue = grdbBase
        benchmark.startMeasurement()
        for query in 0..<compoundQueries {
            let city = "city\(query % 100)"
            blackHole(try! queue.read { db in try ProfileRecord.filter(sql: "city = ? AND rank % 10 = 0", arguments: [city]).fetchAll(db) })
        }
        benchmark.stopMeasurement()
    }
}
