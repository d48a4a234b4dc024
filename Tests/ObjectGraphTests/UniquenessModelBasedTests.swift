import Foundation
import ObjectGraph
import Testing

class RandomMember: ManagedObject, IndexedEntity {
    @Attribute(.unique) var handle: String = ""
    @Attribute(.unique) var email: String? = nil
    @Attribute var team: String = ""
    @Attribute var number: Int = 0

    static let indexes: [EntityIndex] = [.unique(\RandomMember.team, \RandomMember.number)]

    /// The values, as one comparable line.
    var values: String { "\(handle)|\(email ?? "nil")|\(team)|\(number)" }
}

/// A sub-entity: it shares its superentity's table and constraints.
final class RandomGuest: RandomMember {
    @Attribute var host: String = ""
}

@Suite("uniqueness, model-based: random saves on both stores agree, and the store never holds duplicates")
struct UniquenessModelBasedTests {
    static let model = try! ObjectModel(entities: [RandomMember.self, RandomGuest.self])
    /// Composed and decomposed forms of one name collide.
    static let handles = ["ann", "bob", "cy", "dee", "Ren\u{E9}e", "Rene\u{301}e", "eve"]
    static let emails: [String?] = [nil, nil, "a@x", "b@x", "c@x"]
    static let teams = ["red", "blue", "green"]

    /// How many seeds to run: `OBJECTGRAPH_UNIQUENESS_SEEDS`, 25 by default.
    static var seedCount: Int { ProcessInfo.processInfo.environment["OBJECTGRAPH_UNIQUENESS_SEEDS"].flatMap(Int.init) ?? 25 }

    /// One store with one context, driven by the same operations as the other.
    final class Lane {
        let container: PersistentContainer
        let context: ManagedObjectContext
        /// Every object made, in order; the live ones are those still in the context.
        var made: [RandomMember] = []

        init(_ flavor: StoreFlavor, policy: UniquenessPolicy) throws {
            container = try flavor.makeContainer(model: UniquenessModelBasedTests.model)
            context = container.newBackgroundContext()
            context.uniquenessPolicy = policy
        }

        var live: [RandomMember] { made.filter { $0.managedObjectContext === context && !$0.isDeleted } }

        /// Every object the context holds, with its state, in a stable order.
        func snapshot() -> [String] {
            context.registeredObjects.union(context.deletedObjects).compactMap { $0 as? RandomMember }.map { member in
                "\(member.objectID!) inserted:\(member.isInserted) updated:\(member.isUpdated) deleted:\(member.isDeleted) \(member.values)"
            }.sorted()
        }

        /// The objects as a fresh context reads them, by ID.
        func stored() throws -> [ObjectID: String] {
            let reader = container.newBackgroundContext()
            return try reader.performAndWait {
                Dictionary(uniqueKeysWithValues: try reader.fetch(FetchRequest<RandomMember>()).map { ($0.objectID!, $0.values) })
            }
        }

        enum Outcome: Equatable {
            case saved
            case failed([UniquenessConflict])
            case other(String)
        }

        func save() -> Outcome {
            do {
                try context.save()
                return .saved
            } catch ObjectGraphError.uniquenessViolation(let conflicts) {
                return .failed(conflicts)
            } catch {
                return .other("\(error)")
            }
        }
    }

    /// Whether two members collide under a constraint, as Swift's `==` says.
    static func duplicates(_ members: [(handle: String, email: String?, team: String, number: Int)]) -> Bool {
        for (index, left) in members.enumerated() {
            for right in members[(index + 1)...] {
                if left.handle == right.handle { return true }
                if let email = left.email, email == right.email { return true }
                if left.team == right.team, left.number == right.number { return true }
            }
        }
        return false
    }

    @Test("random inserts, updates and deletes with colliding values: same outcome on both stores, context matches the store", arguments: [UniquenessPolicy.error, .upsert])
    func randomSaves(policy: UniquenessPolicy) throws {
        var tally = Tally()
        for seed in 0..<UInt64(Self.seedCount) {
            try run(seed: seed, policy: policy, tally: &tally)
        }
        // The sequences exercise what they are meant to: saves that collide, and saves that pass.
        #expect(tally.collidingSaves > Self.seedCount && tally.cleanSaves > Self.seedCount, "\(tally)")
        if policy == .upsert { #expect(tally.upserted > Self.seedCount, "\(tally)") }
    }

    struct Tally {
        var collidingSaves = 0
        var cleanSaves = 0
        /// Saves with collisions that upsert resolved.
        var upserted = 0
    }

    func run(seed: UInt64, policy: UniquenessPolicy, tally: inout Tally) throws {
        var random = SeededGenerator(seed: seed &+ 0xC0FFEE)
        let lanes = [try Lane(.inMemory, policy: policy), try Lane(.sqlite, policy: policy)]
        var fixes = 0
        for step in 0..<30 {
            let note = Comment(rawValue: "seed \(seed), step \(step), policy \(policy)")
            // A few changes per save, the same in both lanes.
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let liveCount = lanes[0].live.count
                let choice = liveCount > 8 ? 3 : Int.random(in: 0..<4, using: &random)
                let target = liveCount == 0 ? nil : Int.random(in: 0..<liveCount, using: &random)
                let handle = Self.handles.randomElement(using: &random)!
                let email = Self.emails.randomElement(using: &random)!
                let team = Self.teams.randomElement(using: &random)!
                let number = Int.random(in: 0..<4, using: &random)
                let field = Int.random(in: 0..<3, using: &random)
                let isGuest = Int.random(in: 0..<4, using: &random) == 0
                for lane in lanes {
                    lane.context.performAndWait {
                        switch (choice, target) {
                        case (0, _), (_, nil):
                            let member = isGuest ? RandomGuest(context: lane.context) : RandomMember(context: lane.context)
                            (member.handle, member.email, member.team, member.number) = (handle, email, team, number)
                            lane.made.append(member)
                        case (1, let index?), (2, let index?):
                            let member = lane.live[index]
                            switch field {
                            case 0: member.handle = handle
                            case 1: member.email = email
                            default: (member.team, member.number) = (team, number)
                            }
                        case (_, let index?):
                            lane.context.delete(lane.live[index])
                        }
                    }
                }
            }

            let expectsFailure = lanes[0].context.performAndWait {
                Self.duplicates(lanes[0].live.map { ($0.handle, $0.email, $0.team, $0.number) })
            }
            let before = lanes.map { lane in lane.context.performAndWait { lane.snapshot() } }
            let outcomes = lanes.map { lane in lane.context.performAndWait { lane.save() } }
            #expect(outcomes[0] == outcomes[1], note)
            if expectsFailure { tally.collidingSaves += 1 } else { tally.cleanSaves += 1 }
            if expectsFailure, outcomes[0] == .saved { tally.upserted += 1 }
            if case .other(let error) = outcomes[0] { Issue.record(Comment(rawValue: "unexpected error \(error); \(note.rawValue)")) }

            if case .failed(let conflicts) = outcomes[0] {
                if policy == .error {
                    #expect(expectsFailure, note)
                    for (lane, snapshot) in zip(lanes, before) {
                        #expect(lane.context.performAndWait { lane.snapshot() } == snapshot, note)
                    }
                }
                if policy == .error, Bool.random(using: &random) {
                    // Give every object named values of its own and save again; the lanes
                    // list their objects in the same order, so they get the same values.
                    let named = Set(conflicts.map(\.objectID))
                    let firstFix = fixes
                    for lane in lanes {
                        fixes = firstFix
                        lane.context.performAndWait {
                            for member in lane.live where named.contains(member.objectID!) {
                                fixes += 1
                                member.handle = "fixed \(fixes)"
                                member.email = nil
                                member.number = 100 + fixes
                            }
                        }
                    }
                    let retried = lanes.map { lane in lane.context.performAndWait { lane.save() } }
                    #expect(retried == [.saved, .saved], note)
                } else {
                    for lane in lanes { lane.context.performAndWait { lane.context.rollback() } }
                }
            } else if policy == .error {
                #expect(!expectsFailure, note)
            }

            // Both stores hold the same objects, without duplicates, as their contexts have them.
            let stored = try lanes.map { try $0.stored() }
            #expect(stored[0] == stored[1], note)
            let rows = stored[0].values.map { line -> (handle: String, email: String?, team: String, number: Int) in
                let parts = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                return (parts[0], parts[1] == "nil" ? nil : parts[1], parts[2], Int(parts[3])!)
            }
            #expect(!Self.duplicates(rows), note)
            for lane in lanes {
                lane.context.performAndWait {
                    #expect(!lane.context.hasChanges, note)
                    let held = Dictionary(uniqueKeysWithValues: lane.live.map { ($0.objectID!, $0.values) })
                    #expect(held == stored[0], note)
                }
            }
        }
    }
}
