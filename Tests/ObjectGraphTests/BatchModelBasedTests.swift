import Foundation
import ObjectGraph
import Testing

/// Random inserts, batch updates and batch deletes on one container, and the same changes made
/// object by object (fetch, set or delete each, save) on another: after every step a fresh
/// context must read the same objects with the same values and relationships from both, and a
/// context that holds every object and merged each step must show what a fresh one reads.
@Suite("batch work, model-based: a batch does what the same change made object by object does")
struct BatchModelBasedTests {
    /// How many seeds to run: `OBJECTGRAPH_BATCH_SEEDS`, 20 by default (per store).
    static var seedCount: Int { ProcessInfo.processInfo.environment["OBJECTGRAPH_BATCH_SEEDS"].flatMap(Int.init) ?? 20 }
    static let steps = 30
    static let names = ["a", "b", "c", "Ren\u{E9}e", "Rene\u{301}e"]
    /// Few names for buckets, tags and owners, so that deleting by name often finds some.
    static let groupNames = ["a", "Ren\u{E9}e"]

    /// One container, its working context and a context that holds every object.
    final class Lane {
        let container: PersistentContainer
        let context: ManagedObjectContext
        let holder: ManagedObjectContext
        /// Keeps the holder's objects alive, so that merges refresh them.
        var held: [ManagedObject] = []

        init(_ flavor: StoreFlavor) throws {
            container = try flavor.makeContainer()
            context = container.newBackgroundContext(name: "work")
            holder = container.newBackgroundContext(name: "holder")
        }

        /// Every object as a fresh context reads it.
        func stored() throws -> [String] {
            let reader = container.newBackgroundContext(name: "reader")
            return try reader.performAndWait { try Self.describe(reader) }
        }

        /// Every object as the holder shows it, after fetching anything new.
        func heldObjects() throws -> [String] {
            holder.flush()
            return try holder.performAndWait {
                held += try holder.fetch(FetchRequest<Content>()) as [ManagedObject]
                held += try holder.fetch(FetchRequest<Bucket>()) as [ManagedObject]
                held += try holder.fetch(FetchRequest<Tag>()) as [ManagedObject]
                held += try holder.fetch(FetchRequest<Owner>()) as [ManagedObject]
                return try Self.describe(holder)
            }
        }

        static func describe(_ context: ManagedObjectContext) throws -> [String] {
            func ids<S: Sequence>(_ objects: S) -> String where S.Element: ManagedObject {
                objects.compactMap(\.objectID).sorted().map(\.description).joined(separator: ",")
            }
            /// The stored to-one key, which shows a key left pointing at a deleted object.
            func key(_ object: ManagedObject, _ name: String) -> String {
                "\(object.committedValues(forKeys: [name])[name].map { "\($0)" } ?? "?")"
            }
            var lines: [String] = []
            for content in try context.fetch(FetchRequest<Content>()) {
                lines.append("\(content.objectID!) \(content.name) \(content.rank) \(content.isEven) bucket:\(content.bucket.map { ids([$0]) } ?? "-")/\(key(content, "bucket")) tags:\(ids(content.tags))")
            }
            for bucket in try context.fetch(FetchRequest<Bucket>()) {
                lines.append("\(bucket.objectID!) \(bucket.name) owner:\(bucket.owner.map { ids([$0]) } ?? "-")/\(key(bucket, "owner")) contents:\(ids(bucket.contents))")
            }
            for tag in try context.fetch(FetchRequest<Tag>()) {
                lines.append("\(tag.objectID!) \(tag.title) contents:\(ids(tag.contents))")
            }
            for owner in try context.fetch(FetchRequest<Owner>()) {
                lines.append("\(owner.objectID!) \(owner.name) buckets:\(ids(owner.buckets))")
            }
            return lines.sorted()
        }
    }

    /// A predicate on contents, from a small grammar over the values the steps use.
    static func contentPredicate(_ random: inout SeededGenerator) -> Predicate<Content> {
        let rank = Int.random(in: 0..<8, using: &random)
        let name = names.randomElement(using: &random)!
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return #Predicate { $0.rank < rank }
        case 1: return #Predicate { $0.isEven && $0.rank >= rank }
        case 2: return #Predicate { $0.name == name }
        case 3: return #Predicate { $0.bucket?.name == name }
        case 4: return #Predicate { $0.tags.contains { $0.title == name } }
        default: return #Predicate { $0.bucket == nil || !$0.isEven }
        }
    }

    enum Step: CustomStringConvertible {
        case insert(seed: UInt64)
        case update(Predicate<Content>, name: String?, rank: Int?, isEven: Bool?)
        case deleteContents(Predicate<Content>)
        case deleteBuckets(name: String)
        case deleteTags(name: String)
        case deleteOwners

        var description: String {
            switch self {
            case .insert: "insert"
            case let .update(predicate, name, rank, isEven): "update \(predicate.expression) name:\(name ?? "-") rank:\(rank.map(String.init) ?? "-") isEven:\(isEven.map(String.init) ?? "-")"
            case .deleteContents(let predicate): "delete contents \(predicate.expression)"
            case .deleteBuckets(let name): "delete buckets named \(name)"
            case .deleteTags(let name): "delete tags titled \(name)"
            case .deleteOwners: "delete owners"
            }
        }
    }

    static func randomStep(_ random: inout SeededGenerator) -> Step {
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<7: return .insert(seed: random.next())
        case 7..<12:
            var name: String? = Bool.random(using: &random) ? names.randomElement(using: &random) : nil
            let rank: Int? = Bool.random(using: &random) ? Int.random(in: 0..<8, using: &random) : nil
            let isEven: Bool? = Bool.random(using: &random) ? Bool.random(using: &random) : nil
            if name == nil, rank == nil, isEven == nil { name = "a" }
            return .update(contentPredicate(&random), name: name, rank: rank, isEven: isEven)
        case 12..<15: return .deleteContents(contentPredicate(&random))
        case 15, 16: return .deleteBuckets(name: groupNames.randomElement(using: &random)!)
        case 17, 18: return .deleteTags(name: groupNames.randomElement(using: &random)!)
        default: return .deleteOwners
        }
    }

    /// Inserts the same objects, with the same keys, in either lane.
    static func insert(seed: UInt64, in context: ManagedObjectContext) throws {
        var random = SeededGenerator(seed: seed)
        let buckets = try context.fetch(FetchRequest<Bucket>())
        let tags = try context.fetch(FetchRequest<Tag>())
        let owners = try context.fetch(FetchRequest<Owner>())
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            let bucket = Bucket(context: context)
            bucket.name = groupNames.randomElement(using: &random)!
            let sortedOwners = owners.sorted { $0.objectID! < $1.objectID! }
            bucket.owner = sortedOwners.isEmpty ? nil : sortedOwners[Int.random(in: 0..<sortedOwners.count, using: &random)]
        case 1:
            Tag(context: context).title = groupNames.randomElement(using: &random)!
        case 2:
            let owner = Owner(context: context)
            owner.name = groupNames.randomElement(using: &random)!
            owner.buckets = Set(buckets.sorted { $0.objectID! < $1.objectID! }.filter { _ in Bool.random(using: &random) })
        default:
            let content = Bool.random(using: &random) ? ImageContent(context: context) : Content(context: context)
            content.name = names.randomElement(using: &random)!
            content.rank = Int.random(in: 0..<8, using: &random)
            content.isEven = Bool.random(using: &random)
            let sortedBuckets = buckets.sorted { $0.objectID! < $1.objectID! }
            content.bucket = sortedBuckets.isEmpty || Int.random(in: 0..<4, using: &random) == 0
                ? nil : sortedBuckets[Int.random(in: 0..<sortedBuckets.count, using: &random)]
            let sortedTags = tags.sorted { $0.objectID! < $1.objectID! }
            content.tags = Set(sortedTags.filter { _ in Bool.random(using: &random) })
        }
        try context.save()
    }

    /// Runs `step` as batch work.
    static func runBatch(_ step: Step, in context: ManagedObjectContext) throws {
        switch step {
        case .insert(let seed): try insert(seed: seed, in: context)
        case let .update(predicate, name, rank, isEven):
            var update: BatchUpdate<Content>?
            func add<Value>(_ keyPath: ReferenceWritableKeyPath<Content, Value> & Sendable, _ value: Value?) {
                guard let value else { return }
                update = update?.set(keyPath, to: value) ?? BatchUpdate(where: predicate, set: keyPath, to: value)
            }
            add(\.name, name)
            add(\.rank, rank)
            add(\.isEven, isEven)
            try context.execute(update!)
        case .deleteContents(let predicate): try context.delete(Content.self, where: predicate)
        case .deleteBuckets(let name): try context.delete(Bucket.self, where: #Predicate { $0.name == name })
        case .deleteTags(let name): try context.delete(Tag.self, where: #Predicate { $0.title == name })
        case .deleteOwners: try context.delete(Owner.self)
        }
    }

    /// Runs `step` object by object: fetch what matches, change or delete each, save.
    static func runByObject(_ step: Step, in context: ManagedObjectContext) throws {
        switch step {
        case .insert(let seed): try insert(seed: seed, in: context)
        case let .update(predicate, name, rank, isEven):
            for content in try context.fetch(FetchRequest<Content>(predicate: predicate)) {
                if let name { content.name = name }
                if let rank { content.rank = rank }
                if let isEven { content.isEven = isEven }
            }
        case .deleteContents(let predicate):
            for content in try context.fetch(FetchRequest<Content>(predicate: predicate)) { context.delete(content) }
        case .deleteBuckets(let name):
            for bucket in try context.fetch(FetchRequest<Bucket>(predicate: #Predicate { $0.name == name })) { context.delete(bucket) }
        case .deleteTags(let name):
            for tag in try context.fetch(FetchRequest<Tag>(predicate: #Predicate { $0.title == name })) { context.delete(tag) }
        case .deleteOwners:
            for owner in try context.fetch(FetchRequest<Owner>()) { context.delete(owner) }
        }
        try context.save()
    }

    @Test("random batch steps agree with the same steps made object by object", arguments: StoreFlavor.allCases)
    func agreesWithObjectByObject(flavor: StoreFlavor) throws {
        for seed in 1...UInt64(Self.seedCount) {
            var random = SeededGenerator(seed: seed)
            let batch = try Lane(flavor)
            let byObject = try Lane(flavor)
            var history: [String] = []
            for _ in 0..<Self.steps {
                let step = Self.randomStep(&random)
                history.append(step.description)
                try batch.context.performAndWait { try Self.runBatch(step, in: batch.context) }
                try byObject.context.performAndWait { try Self.runByObject(step, in: byObject.context) }
                let stored = try batch.stored()
                guard stored == (try byObject.stored()), stored == (try batch.heldObjects()) else {
                    Issue.record("""
                        seed \(seed) (\(flavor)), after: \(history.joined(separator: "; "))
                        batch:     \(stored)
                        by object: \(try byObject.stored())
                        held:      \(try batch.heldObjects())
                        """)
                    return
                }
            }
        }
    }
}
