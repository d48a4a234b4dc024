import Benchmark
import Dispatch
import Foundation
import GRDB
import ObjectGraph
import Streams

/// V3's store: 10,000 profiles; observer `i` follows profile `i * 10`, so that profiles ending in
/// 5 are never observed.
let observedStoreSize = 10_000
/// How many observed changes one V3 iteration makes (the report divides by it).
let observedChanges = 20
/// How many unobserved profiles V3's bulk save changes.
let unobservedChanges = 1_000

/// What the observers wait for: the username and score of the change just saved. Observers of
/// other profiles (and stale values) do not signal.
final class AwaitedValue: @unchecked Sendable {  // `lock` protects `username` and `score`
    private let lock = NSLock()
    private var username = ""
    private var score = -1
    let arrived = DispatchSemaphore(value: 0)

    func expect(_ username: String, score: Int) {
        lock.withLock { (self.username, self.score) = (username, score) }
    }

    func offer(_ username: String, score: Int) {
        let matches = lock.withLock { username == self.username && score == self.score }
        if matches { arrived.signal() }
    }
}

func registerObserverScenarios() {
    for observers in [1, 100, 1_000] {
        // V3 one observed change: K objectPublishers on the view context; a background save
        // changes one observed profile; time from save() to that observer's value.
        Benchmark("V3-change-\(observers) Streams", configuration: .init(scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 10)) { benchmark in
            let profiles = ObjectGraphProfiles(count: observedStoreSize, copy: true)
            defer { removeDatabase(at: profiles.url) }
            let view = profiles.container.viewContext
            let awaited = AwaitedValue()
            let first = DispatchSemaphore(value: 0)
            let cancellables = (0..<observers).map { index in
                let name = profileValues(index * 10, of: observedStoreSize).username
                return view.objectPublisher(matching: #Predicate<Profile> { $0.username == name })
                    .sink(receiveCompletion: { _ in }, receiveValue: { profile in
                        guard let profile else { return }
                        if profile.score == 0 { first.signal() }
                        awaited.offer(profile.username, score: profile.score)
                    })
            }
            for _ in 0..<observers { first.wait() }
            let background = profiles.context
            let changed: [Profile] = background.performAndWait {
                (0..<observedChanges).map { step in
                    let name = profileValues((step * 7 % observers) * 10, of: observedStoreSize).username
                    return try! background.fetch(FetchRequest<Profile>(predicate: #Predicate { $0.username == name })).first!
                }
            }
            benchmark.startMeasurement()
            for (step, profile) in changed.enumerated() {
                let score = 1_000 + step
                awaited.expect(profile.username, score: score)
                background.performAndWait {
                    profile.score = score
                    try! background.save()
                }
                awaited.arrived.wait()
            }
            benchmark.stopMeasurement()
            withExtendedLifetime(cancellables) {}
        }
        Benchmark("V3-change-\(observers) GRDB", configuration: .init(scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 10)) { benchmark in
            let url = freshCopy(of: rawProfileStore(count: observedStoreSize))
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let pool = grdbPool(at: url)
            let awaited = AwaitedValue()
            let first = DispatchSemaphore(value: 0)
            let deliveries = DispatchQueue(label: "bench.grdb")
            let cancellables = (0..<observers).map { index in
                let name = profileValues(index * 10, of: observedStoreSize).username
                let observation = ValueObservation.tracking { db in try ProfileRecord.filter(Column("username") == name).fetchOne(db) }
                var isFirst = true
                return observation.start(in: pool, scheduling: .async(onQueue: deliveries), onError: { _ in }, onChange: { profile in
                    guard let profile else { return }
                    if isFirst {
                        isFirst = false
                        first.signal()
                    }
                    awaited.offer(profile.username, score: profile.score)
                })
            }
            for _ in 0..<observers { first.wait() }
            benchmark.startMeasurement()
            for step in 0..<observedChanges {
                let index = (step * 7 % observers) * 10
                let name = profileValues(index, of: observedStoreSize).username
                let score = step + 1_000
                awaited.expect(name, score: score)
                try! pool.write { db in try db.execute(sql: "UPDATE profile SET score = ? WHERE username = ?", arguments: [score, name]) }
                awaited.arrived.wait()
            }
            benchmark.stopMeasurement()
            withExtendedLifetime(cancellables) {}
        }

        // V3 one save of 1,000 unobserved changes: from save() until the view context is free
        // (ours), until every observation has run again and delivered (GRDB's, which re-runs
        // each one).
        Benchmark("V3-bulk-\(observers) Streams", configuration: .init(scalingFactor: .one, maxDuration: .seconds(20), maxIterations: 10)) { benchmark in
            let profiles = ObjectGraphProfiles(count: observedStoreSize, copy: true)
            defer { removeDatabase(at: profiles.url) }
            let view = profiles.container.viewContext
            let first = DispatchSemaphore(value: 0)
            let cancellables = (0..<observers).map { index in
                let name = profileValues(index * 10, of: observedStoreSize).username
                return view.objectPublisher(matching: #Predicate<Profile> { $0.username == name })
                    .sink(receiveCompletion: { _ in }, receiveValue: { profile in
                        if profile?.score == 0 { first.signal() }
                    })
            }
            for _ in 0..<observers { first.wait() }
            let background = profiles.context
            let unobserved: [Profile] = background.performAndWait {
                let names = (0..<unobservedChanges).map { profileValues($0 * 10 + 5, of: observedStoreSize).username }
                return try! background.fetch(FetchRequest<Profile>(predicate: #Predicate { names.contains($0.username) }))
            }
            precondition(unobserved.count == unobservedChanges)
            benchmark.startMeasurement()
            background.performAndWait {
                for profile in unobserved { profile.score += 1 }
                try! background.save()
            }
            view.performAndWait {}
            benchmark.stopMeasurement()
            withExtendedLifetime(cancellables) {}
        }
        Benchmark("V3-bulk-\(observers) GRDB", configuration: .init(scalingFactor: .one, maxDuration: .seconds(20), maxIterations: 10)) { benchmark in
            let url = freshCopy(of: rawProfileStore(count: observedStoreSize))
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let pool = grdbPool(at: url)
            let delivered = DispatchSemaphore(value: 0)
            let deliveries = DispatchQueue(label: "bench.grdb")
            let cancellables = (0..<observers).map { index in
                let name = profileValues(index * 10, of: observedStoreSize).username
                let observation = ValueObservation.tracking { db in try ProfileRecord.filter(Column("username") == name).fetchOne(db) }
                return observation.start(in: pool, scheduling: .async(onQueue: deliveries), onError: { _ in }, onChange: { _ in
                    delivered.signal()
                })
            }
            for _ in 0..<observers { delivered.wait() }
            let names = (0..<unobservedChanges).map { profileValues($0 * 10 + 5, of: observedStoreSize).username }
            benchmark.startMeasurement()
            try! pool.write { db in
                for name in names { try db.execute(sql: "UPDATE profile SET score = score + 1 WHERE username = ?", arguments: [name]) }
            }
            for _ in 0..<observers { delivered.wait() }
            benchmark.stopMeasurement()
            withExtendedLifetime(cancellables) {}
        }
    }
}
