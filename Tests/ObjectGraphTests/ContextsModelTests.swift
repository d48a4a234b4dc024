import Dispatch
import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// What the test expects the store to hold, from the saves that succeeded, in their order, with
/// the object-wins policy: the last saved value of each attribute and key wins, deletes win, and
/// a link to a deleted object is gone.
struct ReferenceStore {
    var attributes: [ObjectID: [String: String]] = [:]
    var shelfOfEntry: [ObjectID: ObjectID] = [:]

    mutating func apply(inserted: [ObjectID: [String: String]], updated: [ObjectID: [String: String]],
                        shelves: [ObjectID: ObjectID?], deleted: Set<ObjectID>) {
        for (id, values) in inserted { attributes[id] = values }
        for (id, values) in updated where attributes[id] != nil { attributes[id]!.merge(values) { $1 } }
        for (id, shelf) in shelves where attributes[id] != nil { shelfOfEntry[id] = shelf }
        for id in deleted {
            attributes[id] = nil
            shelfOfEntry[id] = nil
        }
        shelfOfEntry = shelfOfEntry.filter { attributes[$0.value] != nil }
    }
}

@Suite("model-based: random edits in three contexts on one store")
struct ContextsModelTests {
    static let seeds = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_MODEL_SEEDS"] ?? "") ?? 4
    static let steps = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_MODEL_STEPS"] ?? "") ?? 40
    static let firstSeed = UInt64(ProcessInfo.processInfo.environment["OBJECTGRAPH_MODEL_FIRST_SEED"] ?? "") ?? 1

    static let byTitle = FetchRequest<Entry>(sortBy: [SortDescriptor(\.title), SortDescriptor(\.score)])
    static var onImportantShelves: FetchRequest<Entry> {
        var request = FetchRequest<Entry>(predicate: #Predicate { ($0.shelf?.priority ?? 0) >= 2 }, sortBy: [SortDescriptor(\.score), SortDescriptor(\.title)])
        request.relationshipKeyPathsForRefreshing = ["shelf.priority"]
        return request
    }

    @Test(
        "after every step each context's objects equal the store plus its own unsaved changes, the store equals the reference, and every live result equals a fresh fetch",
        arguments: StoreFlavor.allCases)
    func randomSteps(flavor: StoreFlavor) throws {
        for seed in Self.firstSeed..<(Self.firstSeed + UInt64(Self.seeds)) {
            try run(flavor: flavor, seed: seed)
        }
    }

    @Test("the same, with another process (its own container) saving random edits to the store between the steps",
          arguments: StoreFlavor.persistent)
    func randomStepsWithAnotherProcess(flavor: StoreFlavor) throws {
        for seed in Self.firstSeed..<(Self.firstSeed + UInt64(Self.seeds)) {
            try run(flavor: flavor, seed: seed, withAnotherProcess: true)
        }
    }

    func run(flavor: StoreFlavor, seed: UInt64, withAnotherProcess: Bool = false) throws {
        var generator = SeededGenerator(seed: seed)
        let location = flavor == .inMemory ? nil : try StoreLocation(flavor)
        defer { if case let .file(url)? = location?.place { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) } }
        let kind = location?.kind() ?? .inMemory
        let container = try PersistentContainer(model: CorrectnessModel.model, store: kind, viewContextQueue: DispatchQueue(label: "model.view"))
        defer { container.close() }
        let child = try location.flatMap { withAnotherProcess ? try ChildWriter($0, correctnessModel: true) : nil }
        defer { child?.quit() }
        let contexts = [container.viewContext, container.newBackgroundContext(name: "first"), container.newBackgroundContext(name: "second")]
        for context in contexts { context.mergePolicy = .objectWins }
        let live = try contexts.map { context in
            try context.performAndWait { try [Self.byTitle, Self.onImportantShelves].map { try LiveResults($0, in: context) } }
        }
        var reference = ReferenceStore()
        var history: [String] = []

        for step in 0..<Self.steps {
            if let child, Int.random(in: 0..<4, using: &generator) == 0 {
                history.append("step \(step) other process: " + (try Self.otherProcessStep(child, container: container, reference: &reference, using: &generator)))
                // Whatever woke it or not, the feed reads the history now (the wake-up is a hint).
                container.coordinator.feed?.checkNow()
                guard try check(step: step, seed: seed, flavor: flavor, location: location, container: container, contexts: contexts, live: live, reference: reference, history: history, generator: &generator) else { return }
                continue
            }
            let index = Int.random(in: 0..<contexts.count, using: &generator)
            let context = contexts[index]
            let edits = Int.random(in: 1...3, using: &generator)
            let action = Int.random(in: 0..<20, using: &generator)
            var local = generator
            let described = try context.performAndWait { () throws -> String in
                var done: [String] = []
                for _ in 0..<edits { done.append(try Self.edit(in: context, using: &local)) }
                if action < 10 {
                    let (inserted, updated, shelves, deleted) = Self.pendingWrites(of: context)
                    try context.save()
                    reference.apply(inserted: inserted, updated: updated, shelves: shelves, deleted: deleted)
                    done.append("saved")
                } else if action == 10 {
                    context.rollback()
                    done.append("rolled back")
                }
                return "\(context.name): " + done.joined(separator: ", ")
            }
            generator = local
            history.append("step \(step) \(described)")
            guard try check(step: step, seed: seed, flavor: flavor, location: location, container: container, contexts: contexts, live: live, reference: reference, history: history, generator: &generator) else { return }
        }
        withExtendedLifetime(live) {}
    }

    /// Lets every context merge, then checks the store, each context and each live result;
    /// records an issue and returns `false` at the first step with a problem.
    func check(
        step: Int, seed: UInt64, flavor: StoreFlavor, location: StoreLocation?, container: PersistentContainer, contexts: [ManagedObjectContext],
        live: [[LiveResults]], reference: ReferenceStore, history: [String], generator: inout SeededGenerator
    ) throws -> Bool {
        // Merges run in a random order of the queues, twice over (a merge can schedule work).
        for _ in 0..<2 { for other in contexts.shuffled(using: &generator) { other.flush() } }
        for (context, results) in zip(contexts, live) { context.performAndWait { results.forEach { $0.pull() } } }

        var problems = try storeProblems(container: container, reference: reference, location: location)
        for (context, results) in zip(contexts, live) {
            problems += try contextProblems(context, container: container).map { "\(context.name): \($0)" }
            problems += try context.performAndWait {
                try results.flatMap { result in
                    result.problems(against: try context.totallyOrderedFetch(result.request)).map { "\(context.name) live: \($0)" }
                }
            }
        }
        if !problems.isEmpty, ProcessInfo.processInfo.environment["OGDUMP"] != nil {
            for context in contexts {
                context.performAndWait {
                    let entries = (try? context.fetch(FetchRequest<Entry>())) ?? []
                    print("DUMP \(context.name) entries \(entries.map { "\($0.objectID!) \($0.title) on \($0.shelf?.objectID.map { "\($0)" } ?? "-") changed \($0.changedValues().keys.sorted())" })")
                    let shelves = (try? context.fetch(FetchRequest<Shelf>())) ?? []
                    print("DUMP \(context.name) shelves \(shelves.map { "\($0.objectID!) p\($0.priority) \($0.entries.map(\.objectID!)) changed \($0.changedValues().keys.sorted())" })")
                }
            }
        }
        if !problems.isEmpty {
            Issue.record("""
                seed \(seed) (\(flavor)), step \(step): \(problems.prefix(6).joined(separator: "; "))
                replay: OBJECTGRAPH_MODEL_FIRST_SEED=\(seed) OBJECTGRAPH_MODEL_SEEDS=1; last steps:
                \(history.suffix(Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_MODEL_HISTORY"] ?? "") ?? 12).joined(separator: "\n"))
                """)
            return false
        }
        return true
    }

    /// One random edit saved by the other process, chosen among the objects the store holds
    /// now, and what it means for the reference (the other process saves with object-wins too).
    static func otherProcessStep(
        _ child: ChildWriter, container: PersistentContainer, reference: inout ReferenceStore, using generator: inout SeededGenerator
    ) throws -> String {
        let fresh = container.newBackgroundContext(name: "fresh")
        let (entries, shelves, marks) = try fresh.performAndWait {
            func ids<T: ManagedObject>(_ type: T.Type) throws -> [ObjectID] { try fresh.fetch(FetchRequest<T>()).compactMap(\.objectID).sorted() }
            return (try ids(Entry.self), try ids(Shelf.self), try ids(Mark.self))
        }
        func key(_ id: ObjectID?) -> String { id.map { "\($0.primaryKey)" } ?? "-" }
        func made(_ entity: String, _ key: Int64?) -> ObjectID? {
            key.map { ObjectID(entity: CorrectnessModel.model.entity(named: entity)!, primaryKey: $0) }
        }
        var choice = Int.random(in: 0..<10, using: &generator)
        if entries.isEmpty || shelves.isEmpty || marks.isEmpty { choice = Int.random(in: 0..<3, using: &generator) }
        let title = titles.randomElement(using: &generator)!
        switch choice {
        case 0:
            let bits = scores.randomElement(using: &generator)!.bitPattern
            let shelf = Bool.random(using: &generator) ? shelves.randomElement(using: &generator) : nil
            let mark = Bool.random(using: &generator) ? marks.randomElement(using: &generator) : nil
            guard let id = made("Entry", child.runMaking("entry \(title) \(bits) \(key(shelf)) \(key(mark))")) else { return "failed" }
            reference.apply(inserted: [id: ["title": title, "score": "\(bits)"]], updated: [:], shelves: [id: shelf], deleted: [])
            return "insert entry \(id)"
        case 1:
            let priority = Int.random(in: 0...3, using: &generator)
            guard let id = made("Shelf", child.runMaking("shelf \(title) \(priority)")) else { return "failed" }
            reference.apply(inserted: [id: ["name": title, "priority": "\(priority)"]], updated: [:], shelves: [:], deleted: [])
            return "insert shelf \(id)"
        case 2:
            guard let id = made("Mark", child.runMaking("mark \(title)")) else { return "failed" }
            reference.apply(inserted: [id: ["title": title]], updated: [:], shelves: [:], deleted: [])
            return "insert mark \(id)"
        case 3:
            let entry = entries.randomElement(using: &generator)!
            child.run("retitle \(key(entry)) \(title)")
            reference.apply(inserted: [:], updated: [entry: ["title": title]], shelves: [:], deleted: [])
            return "retitle \(entry) \(title)"
        case 4:
            let entry = entries.randomElement(using: &generator)!
            let bits = scores.randomElement(using: &generator)!.bitPattern
            child.run("rescore \(key(entry)) \(bits)")
            reference.apply(inserted: [:], updated: [entry: ["score": "\(bits)"]], shelves: [:], deleted: [])
            return "rescore \(entry)"
        case 5:
            let shelf = shelves.randomElement(using: &generator)!
            let priority = Int.random(in: 0...3, using: &generator)
            child.run("reprioritise \(key(shelf)) \(priority) \(title)")
            reference.apply(inserted: [:], updated: [shelf: ["priority": "\(priority)", "name": title]], shelves: [:], deleted: [])
            return "reprioritise \(shelf) \(priority)"
        case 6:
            let entry = entries.randomElement(using: &generator)!
            let shelf = Int.random(in: 0..<4, using: &generator) == 0 ? nil : shelves.randomElement(using: &generator)
            child.run("file \(key(entry)) \(key(shelf))")
            reference.apply(inserted: [:], updated: [:], shelves: [entry: shelf], deleted: [])
            return "file \(entry) on \(key(shelf))"
        case 7:
            let entry = entries.randomElement(using: &generator)!, mark = marks.randomElement(using: &generator)!
            let linking = Bool.random(using: &generator)
            child.run("\(linking ? "link" : "unlink") \(key(entry)) \(key(mark))")
            return "\(linking ? "link" : "unlink") \(entry) and \(mark)"
        default:
            let victim = [entries, shelves, marks][Int.random(in: 0..<3, using: &generator)].randomElement(using: &generator)!
            child.run("delete \(victim.entity.name) \(key(victim))")
            reference.apply(inserted: [:], updated: [:], shelves: [:], deleted: [victim])
            return "delete \(victim)"
        }
    }


    // MARK: Edits

    static let titles = ["a", "b", "c", "d"]
    static let scores: [Double] = [0, -0.0, 1.5, -2, 7]

    /// One random edit in `context`; returns what it did. On the context's queue.
    static func edit(in context: ManagedObjectContext, using generator: inout SeededGenerator) throws -> String {
        let entries = try context.fetch(FetchRequest<Entry>()).sorted { $0.objectID! < $1.objectID! }
        let shelves = try context.fetch(FetchRequest<Shelf>()).sorted { $0.objectID! < $1.objectID! }
        let marks = try context.fetch(FetchRequest<Mark>()).sorted { $0.objectID! < $1.objectID! }
        var choice = Int.random(in: 0..<13, using: &generator)
        if entries.isEmpty || shelves.isEmpty || marks.isEmpty { choice = [0, 1, 2][Int.random(in: 0..<3, using: &generator)] }
        switch choice {
        case 0:
            let entry = Entry(context: context)
            entry.title = titles.randomElement(using: &generator)!
            entry.score = scores.randomElement(using: &generator)!
            if Bool.random(using: &generator) { entry.shelf = shelves.randomElement(using: &generator) }
            if let mark = marks.randomElement(using: &generator), Bool.random(using: &generator) { entry.marks.insert(mark) }
            return "insert entry \(entry.objectID.map { "\($0)" } ?? "?")"
        case 1:
            let shelf = Shelf(context: context)
            shelf.name = titles.randomElement(using: &generator)!
            shelf.priority = Int.random(in: 0...3, using: &generator)
            return "insert shelf \(shelf.objectID.map { "\($0)" } ?? "?")"
        case 2:
            Mark(context: context).title = titles.randomElement(using: &generator)!
            return "insert mark"
        case 3:
            let entry = entries.randomElement(using: &generator)!
            entry.title = titles.randomElement(using: &generator)!
            return "retitle \(entry.objectID!) \(entry.title)"
        case 4:
            let entry = entries.randomElement(using: &generator)!
            entry.score = scores.randomElement(using: &generator)!
            return "rescore \(entry.objectID!) \(entry.score)"
        case 5:
            let shelf = shelves.randomElement(using: &generator)!
            shelf.priority = Int.random(in: 0...3, using: &generator)
            shelf.name = titles.randomElement(using: &generator)!
            return "reprioritise \(shelf.objectID!) \(shelf.priority)"
        case 6, 7:
            let entry = entries.randomElement(using: &generator)!
            let shelf = Int.random(in: 0..<4, using: &generator) == 0 ? nil : shelves.randomElement(using: &generator)
            entry.shelf = shelf
            return "file \(entry.objectID!) on \(shelf?.objectID.map { "\($0)" } ?? "nothing")"
        case 8:
            let entry = entries.randomElement(using: &generator)!
            let mark = marks.randomElement(using: &generator)!
            entry.marks.insert(mark)
            return "mark \(entry.objectID!) with \(mark.objectID!)"
        case 9:
            let entry = entries.randomElement(using: &generator)!
            guard let mark = entry.marks.sorted(by: { $0.objectID! < $1.objectID! }).randomElement(using: &generator) else { return "nothing" }
            mark.entries.remove(entry)
            return "unmark \(entry.objectID!) from \(mark.objectID!)"
        case 12:
            // Out of the set and back in around a new entry: no change to the old entry's shelf,
            // so a sibling's save that files it elsewhere meanwhile must win.
            let entry = entries.randomElement(using: &generator)!
            guard let shelf = entry.shelf else { return "nothing" }
            shelf.entries.remove(entry)
            let added = Entry(context: context)
            added.title = titles.randomElement(using: &generator)!
            shelf.entries.insert(added)
            shelf.entries.insert(entry)
            return "refile \(entry.objectID!) through \(shelf.objectID!).entries, adding \(added.objectID.map { "\($0)" } ?? "?")"
        case 10:
            let entry = entries.randomElement(using: &generator)!
            context.delete(entry)
            return "delete \(entry.objectID!)"
        default:
            let victim: ManagedObject = Bool.random(using: &generator) ? shelves.randomElement(using: &generator)! : marks.randomElement(using: &generator)!
            context.delete(victim)
            return "delete \(victim.objectID!)"
        }
    }

    /// What `context`'s next save means to write, for the reference: inserted objects' values,
    /// the changed attributes and keys of updated ones, and the deletes. On the context's queue.
    static func pendingWrites(of context: ManagedObjectContext)
        -> ([ObjectID: [String: String]], [ObjectID: [String: String]], [ObjectID: ObjectID?], Set<ObjectID>) {
        var inserted: [ObjectID: [String: String]] = [:]
        var updated: [ObjectID: [String: String]] = [:]
        var shelves: [ObjectID: ObjectID?] = [:]
        for object in context.insertedObjects {
            guard let id = object.objectID else { continue }
            inserted[id] = attributes(of: object)
            if let entry = object as? Entry { shelves[id] = entry.shelf?.objectID }
        }
        for object in context.updatedObjects {
            guard let id = object.objectID else { continue }
            let changed = object.changedValues()
            updated[id] = attributes(of: object).filter { changed[$0.key] != nil }
            if let entry = object as? Entry, changed["shelf"] != nil { shelves[id] = entry.shelf?.objectID }
        }
        return (inserted, updated, shelves, Set(context.deletedObjects.compactMap(\.objectID)))
    }

    /// The attributes of an object as text (a double by its bits).
    static func attributes(of object: ManagedObject) -> [String: String] {
        switch object {
        case let entry as Entry: ["title": entry.title, "score": "\(entry.score.bitPattern)"]
        case let shelf as Shelf: ["name": shelf.name, "priority": "\(shelf.priority)"]
        case let mark as Mark: ["title": mark.title]
        default: [:]
        }
    }

    // MARK: Checks

    /// One object as a context sees it: attributes, and relationships by ID.
    struct Seen: Equatable {
        var attributes: [String: String]
        var shelf: ObjectID?
        var members: Set<ObjectID>  // an entry's marks, a shelf's or a mark's entries
    }

    /// Every object `context` holds or can fetch, as it sees them. On the context's queue.
    static func snapshot(_ context: ManagedObjectContext) throws -> [ObjectID: (object: ManagedObject, seen: Seen)] {
        var seen: [ObjectID: (ManagedObject, Seen)] = [:]
        for entry in try context.fetch(FetchRequest<Entry>()) {
            seen[entry.objectID!] = (entry, Seen(attributes: attributes(of: entry), shelf: entry.shelf?.objectID, members: Set(entry.marks.map { $0.objectID! })))
        }
        for shelf in try context.fetch(FetchRequest<Shelf>()) {
            seen[shelf.objectID!] = (shelf, Seen(attributes: attributes(of: shelf), shelf: nil, members: Set(shelf.entries.map { $0.objectID! })))
        }
        for mark in try context.fetch(FetchRequest<Mark>()) {
            seen[mark.objectID!] = (mark, Seen(attributes: attributes(of: mark), shelf: nil, members: Set(mark.entries.map { $0.objectID! })))
        }
        return seen
    }

    /// The store, read by a new context: equal to the reference, no link to a missing row, both
    /// sides of every relationship in agreement.
    func storeProblems(container: PersistentContainer, reference: ReferenceStore, location: StoreLocation?) throws -> [String] {
        let fresh = container.newBackgroundContext(name: "fresh")
        var problems = try fresh.performAndWait { () throws -> [String] in
            let seen = try Self.snapshot(fresh)
            var problems = Self.agreementProblems(seen.mapValues(\.seen), in: "store")
            let attributes = seen.mapValues(\.seen.attributes)
            if attributes != reference.attributes {
                let differing = Set(attributes.keys).symmetricDifference(reference.attributes.keys).sorted()
                    + attributes.keys.filter { reference.attributes[$0] != nil && reference.attributes[$0] != attributes[$0] }.sorted()
                problems.append("store ≠ reference at \(differing.prefix(4))")
            }
            for (id, (object, value)) in seen where object is Entry {
                if value.shelf != reference.shelfOfEntry[id] { problems.append("store: \(id) is on \(String(describing: value.shelf)), the reference says \(String(describing: reference.shelfOfEntry[id]))") }
                if case .object(let shelf)? = object.committedValues(forKeys: ["shelf"])["shelf"], seen[shelf] == nil {
                    problems.append("store: \(id) keeps the key of the missing \(shelf)")
                }
            }
            return problems
        }
        if let location {
            let danglingKeys = try location.count("SELECT count(*) FROM \"Entry\" WHERE shelf IS NOT NULL AND shelf NOT IN (SELECT pk FROM \"Shelf\")")
            let danglingPairs = try location.count("SELECT count(*) FROM \"Entry.marks-Mark.entries\" WHERE owner NOT IN (SELECT pk FROM \"Entry\") OR target NOT IN (SELECT pk FROM \"Mark\")")
            if danglingKeys + danglingPairs > 0 { problems.append("the store has \(danglingKeys) keys and \(danglingPairs) pairs pointing at deleted rows") }
        }
        return problems
    }

    /// One context: its objects equal the store's except where it has unsaved changes, it holds
    /// no object the store lost (unless inserted here), it misses none (unless deleted here),
    /// and both sides of every relationship agree, unsaved changes included.
    func contextProblems(_ context: ManagedObjectContext, container: PersistentContainer) throws -> [String] {
        let fresh = container.newBackgroundContext(name: "fresh")
        let stored = try fresh.performAndWait { try Self.snapshot(fresh).mapValues(\.seen) }
        return try context.performAndWait { () throws -> [String] in
            let seen = try Self.snapshot(context)
            var problems = Self.agreementProblems(seen.mapValues(\.seen), in: "context")
            let deletedHere = Set(context.deletedObjects.compactMap(\.objectID))
            for id in Set(stored.keys).subtracting(seen.keys) where !deletedHere.contains(id) {
                problems.append("misses \(id), which the store has")
            }
            for (id, (object, value)) in seen.sorted(by: { $0.key < $1.key }) {
                guard !object.isInserted else { continue }
                guard let storedValue = stored[id] else {
                    problems.append("holds \(id), which the store does not have")
                    continue
                }
                let changed = object.changedValues()
                // Links to objects deleted here and not saved yet do not show here.
                var inStore = storedValue
                if let shelf = inStore.shelf, deletedHere.contains(shelf) { inStore.shelf = nil }
                inStore.members.subtract(deletedHere)
                for (key, text) in value.attributes where changed[key] == nil && inStore.attributes[key] != text {
                    problems.append("\(id).\(key) is \(text), the store has \(inStore.attributes[key] ?? "-")")
                }
                if object is Entry, changed["shelf"] == nil, value.shelf != inStore.shelf {
                    problems.append("\(id).shelf is \(String(describing: value.shelf)), the store has \(String(describing: inStore.shelf))")
                }
                let membersKey = object is Entry ? "marks" : "entries"
                if changed[membersKey] == nil, value.members != inStore.members {
                    problems.append("\(id).\(membersKey) is \(value.members.sorted()), the store has \(inStore.members.sorted())")
                }
            }
            return problems
        }
    }

    /// Both sides of every relationship agree: an entry's shelf lists it, a shelf's entries are
    /// on it, an entry's marks list it and a mark's entries carry it.
    static func agreementProblems(_ seen: [ObjectID: Seen], in place: String) -> [String] {
        var problems: [String] = []
        for (id, value) in seen.sorted(by: { $0.key < $1.key }) {
            if let shelf = value.shelf, seen[shelf]?.members.contains(id) != true {
                problems.append("\(place): \(id) is on \(shelf), whose entries do not list it")
            }
            if id.entity.name == "Shelf" {
                for entry in value.members where seen[entry]?.shelf != id { problems.append("\(place): \(id).entries lists \(entry), which is not on it") }
            }
            if id.entity.name == "Entry" {
                for mark in value.members where seen[mark]?.members.contains(id) != true { problems.append("\(place): \(id) has \(mark), which does not list it") }
            }
            if id.entity.name == "Mark" {
                for entry in value.members where seen[entry]?.members.contains(id) != true { problems.append("\(place): \(id).entries lists \(entry), which does not have it") }
            }
        }
        return problems
    }
}
