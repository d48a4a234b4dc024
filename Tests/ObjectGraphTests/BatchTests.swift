import Foundation
import ObjectGraph
import Testing

/// A model with a computed property and a one-to-one relationship, for the batch tests.
final class BatchShelf: ManagedObject {
    @Attribute var label: String = ""
    @Attribute var width: Double = 0
    @Attribute var note: String? = nil
    @Relationship(inverse: "shelf") var lamp: Lamp?
    @Relationship(inverse: "shelf", deleteRule: .noAction) var volumes: Set<Volume>

    var shout: String { label.uppercased() }
}

final class Lamp: ManagedObject {
    @Attribute var watts: Int = 0
    @Relationship(inverse: "lamp") var shelf: BatchShelf?
}

final class Volume: ManagedObject {
    @Attribute var title: String = ""
    @Relationship(inverse: "volumes") var shelf: BatchShelf?
}

enum BatchModel {
    static let model = try! ObjectModel(entities: [BatchShelf.self, Lamp.self, Volume.self])
}

/// Saves `count` contents named `c0`, `c1`, … with rank = index, `isEven` for even indexes, in
/// bucket "a" (indexes below half) or "b"; returns their IDs in order.
@discardableResult
func seedContents(_ count: Int, in context: ManagedObjectContext) throws -> [ObjectID] {
    try context.performAndWait {
        let a = Bucket(context: context)
        a.name = "a"
        let b = Bucket(context: context)
        b.name = "b"
        let contents = (0..<count).map { index in
            let content = Content(context: context)
            content.name = "c\(index)"
            content.rank = index
            content.isEven = index % 2 == 0
            content.bucket = index < count / 2 ? a : b
            return content
        }
        try context.save()
        return contents.map { $0.objectID! }
    }
}

/// What a fresh context reads: every content as `name rank isEven bucket`, by name.
func storedContents(_ container: PersistentContainer) throws -> [String] {
    let reader = container.newBackgroundContext()
    return try reader.performAndWait {
        try reader.fetch(FetchRequest<Content>(sortBy: [SortDescriptor(\.name)])).map {
            "\($0.name) \($0.rank) \($0.isEven) \($0.bucket?.name ?? "-")"
        }
    }
}

@Suite("batch update and delete")
struct BatchTests {
    @Test("a batch update sets the values on the objects the predicate matches, and only on them", arguments: StoreFlavor.allCases)
    func updateSetsMatched(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let context = container.newBackgroundContext()
        let ids = try seedContents(6, in: context)
        let result = try context.performAndWait {
            try context.execute(BatchUpdate<Content>(where: #Predicate { $0.rank >= 3 }, set: \.name, to: "late").set(\.isEven, to: true))
        }
        #expect(result.objectIDs == Array(ids[3...]))
        #expect(result.changes.updatedIDs == Set(ids[3...]))
        #expect(result.changes.changedKeys[ids[3]] == ["name", "isEven"])
        #expect(try storedContents(container) == [
            "c0 0 true a", "c1 1 false a", "c2 2 true a", "late 3 true b", "late 4 true b", "late 5 true b",
        ])
    }

    @Test("objects that hold the values already are left alone: not counted, version unchanged", arguments: StoreFlavor.allCases)
    func updateSkipsUnchanged(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let context = container.newBackgroundContext()
        let ids = try seedContents(4, in: context)
        let result = try context.performAndWait { try context.execute(BatchUpdate<Content>(set: \.isEven, to: true)) }
        #expect(result.objectIDs == [ids[1], ids[3]])
        // The untouched object still saves a change made on its old version without a conflict.
        try context.performAndWait {
            let untouched = try #require(context.object(with: ids[0], as: Content.self))
            untouched.name = "still fine"
            try context.save()
        }
    }

    @Test("a batch update sets an optional to nil, a canonically equal string leaves the stored form, and 0.0 over -0.0 is written", arguments: StoreFlavor.allCases)
    func updateOptionalsAndEqualStrings(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let values = AllTypes(context: context)
            values.optionalString = "x"
            values.string = "Ren\u{E9}e"
            values.optionalDouble = -0.0
            try context.save()
            let result = try context.execute(
                BatchUpdate<AllTypes>(set: \.optionalString, to: nil).set(\.string, to: "Rene\u{301}e").set(\.optionalDouble, to: 0.0))
            #expect(result.count == 1)
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let values = try #require(try reader.fetch(FetchRequest<AllTypes>()).first)
            #expect(values.optionalString == nil)
            #expect(Array(values.string.unicodeScalars) == Array("Ren\u{E9}e".unicodeScalars))
            #expect(values.optionalDouble?.sign == .plus)  // bit for bit, as a context records changes
        }
    }

    @Test("a batch update of a key path it cannot set throws a typed error and changes nothing", arguments: StoreFlavor.allCases)
    func updateInvalidKeyPath(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: BatchModel.model)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let shelf = BatchShelf(context: context)
            shelf.label = "top"
            shelf.lamp = Lamp(context: context)
            try context.save()
            let error = #expect(throws: ObjectGraphError.self) { try context.execute(BatchUpdate<BatchShelf>(set: \.lamp, to: nil)) }
            guard case let .invalidBatchUpdate(entity, _, reason)? = error else {
                Issue.record("expected invalidBatchUpdate, got \(String(describing: error))")
                return
            }
            #expect(entity == "BatchShelf")
            #expect(reason.contains("lamp is a relationship"))
            #expect(shelf.lamp != nil)
        }
    }

    @Test("a predicate SQL cannot answer fully makes the batch throw, naming the part, and nothing changes", arguments: StoreFlavor.allCases)
    func untranslatablePredicate(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: BatchModel.model)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for label in ["a", "b"] { BatchShelf(context: context).label = label }
            try context.save()
            let error = #expect(throws: ObjectGraphError.self) {
                try context.execute(BatchUpdate<BatchShelf>(where: #Predicate { $0.shout == "A" && $0.width == 0 }, set: \.width, to: 2))
            }
            guard case let .batchPredicateNotTranslatable(entity, parts)? = error else {
                Issue.record("expected batchPredicateNotTranslatable, got \(String(describing: error))")
                return
            }
            #expect(entity == "BatchShelf")
            #expect(parts.count == 1 && parts[0].contains("is not known as a stored property of BatchShelf"), "\(parts)")
            #expect(throws: ObjectGraphError.self) { try context.delete(BatchShelf.self, where: #Predicate { $0.shout == "A" }) }
            #expect(try context.count(for: FetchRequest<BatchShelf>(predicate: #Predicate { $0.width == 0 })) == 2)
        }
    }

    @Test("a batch on an entity with no stored objects does nothing", arguments: StoreFlavor.allCases)
    func emptyStore(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: BatchModel.model)
        let context = container.newBackgroundContext()
        let counts = try context.performAndWait {
            (try context.execute(BatchUpdate<Lamp>(where: #Predicate { $0.watts > 3 }, set: \.watts, to: 1)).count,
             try context.delete(Lamp.self).count)
        }
        #expect(counts == (0, 0))
    }

    @Test("sub-entities are included unless asked otherwise", arguments: StoreFlavor.allCases)
    func subentities(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            Content(context: context).rank = 1
            ImageContent(context: context).rank = 1
            try context.save()
            var onlyContents = BatchUpdate<Content>(set: \.rank, to: 2)
            onlyContents.includesSubentities = false
            #expect(try context.execute(onlyContents).count == 1)
            #expect(try context.execute(BatchUpdate<Content>(set: \.rank, to: 3)).count == 2)
            #expect(try context.delete(Content.self, where: #Predicate { $0.rank == 3 }, includesSubentities: false).count == 1)
            #expect(try context.fetch(FetchRequest<Content>()).map { String(describing: type(of: $0)) } == ["ImageContent"])
        }
    }

    // MARK: Delete rules

    @Test("a batch delete cascades as deleting each object does", arguments: StoreFlavor.allCases)
    func deleteCascades(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let context = container.newBackgroundContext()
        let ids = try seedContents(4, in: context)
        let result = try context.performAndWait { try context.delete(Bucket.self, where: #Predicate { $0.name == "a" }) }
        #expect(result.count == 1)
        #expect(result.changes.deletedIDs.isSuperset(of: ids[0..<2]))
        #expect(result.changes.deletedIDs.count == 3)
        #expect(try storedContents(container) == ["c2 2 true b", "c3 3 false b"])
    }

    @Test("a batch delete removes the deleted objects from their inverses (nullify), on both sides of a to-many", arguments: StoreFlavor.allCases)
    func deleteNullifies(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let context = container.newBackgroundContext()
        let (bucketID, tagID, ownerID) = try context.performAndWait {
            let owner = Owner(context: context)
            let bucket = Bucket(context: context)
            bucket.owner = owner
            let tag = Tag(context: context)
            for index in 0..<3 {
                let content = Content(context: context)
                content.rank = index
                content.bucket = bucket
                content.tags = [tag]
            }
            try context.save()
            return (bucket.objectID!, tag.objectID!, owner.objectID!)
        }
        let result = try context.performAndWait { try context.delete(Content.self, where: #Predicate { $0.rank < 2 }) }
        #expect(result.changes.updatedIDs == [bucketID, tagID])
        #expect(result.changes.changedKeys[bucketID] == ["contents"])
        #expect(result.changes.changedKeys[tagID] == ["contents"])
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let bucket = try #require(reader.object(with: bucketID, as: Bucket.self))
            let tag = try #require(reader.object(with: tagID, as: Tag.self))
            #expect(bucket.contents.map(\.rank) == [2])
            #expect(tag.contents.map(\.rank) == [2])
        }
        // To-one inverses are cleared in the row: the owner's buckets go, the bucket's owner is nil.
        try context.performAndWait { _ = try context.delete(Owner.self) }
        let (owner, ownerGone) = reader.performAndWait {
            reader.reset()
            return (reader.object(with: bucketID, as: Bucket.self)?.owner, reader.object(with: ownerID) == nil)
        }
        #expect(owner == nil)
        #expect(ownerGone)
    }

    @Test("a one-to-one inverse is cleared, and a noAction link to a deleted object is removed as after a save", arguments: StoreFlavor.allCases)
    func deleteOneToOneAndNoAction(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: BatchModel.model)
        let context = container.newBackgroundContext()
        let (lampID, volumeID) = try context.performAndWait {
            let shelf = BatchShelf(context: context)
            shelf.label = "s"
            let lamp = Lamp(context: context)
            lamp.shelf = shelf
            let volume = Volume(context: context)
            volume.shelf = shelf
            try context.save()
            return (lamp.objectID!, volume.objectID!)
        }
        let result = try context.performAndWait { try context.delete(BatchShelf.self) }
        #expect(result.changes.updatedIDs == [lampID, volumeID])  // no row points at a deleted one
        let reader = container.newBackgroundContext()
        try reader.performAndWait { () throws in
            #expect(try #require(reader.object(with: lampID, as: Lamp.self)).shelf == nil)
            #expect(try #require(reader.object(with: volumeID, as: Volume.self)).shelf == nil)  // the target is gone
        }
    }

    // MARK: Uniqueness

    @Test("a batch update that would break uniqueness throws the collisions a save would, and writes nothing", arguments: StoreFlavor.allCases)
    func updateBreaksUniqueness(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        let ids = try context.performAndWait {
            let profiles = ["ann", "bob", "cy"].enumerated().map { Profile.make($1, rank: $0, in: context) }
            try context.save()
            return profiles.map { $0.objectID! }
        }
        let conflicts = violation {
            try context.performAndWait { _ = try context.execute(BatchUpdate<Profile>(where: #Predicate { $0.rank >= 1 }, set: \.username, to: "ann")) }
        }
        #expect(conflicts?.map(\.objectID) == [ids[1], ids[2]])
        #expect(conflicts?.map(\.conflictingObjectID) == [ids[0], ids[0]])
        #expect(conflicts?.first?.values == [.string("ann")])
        let names = try context.performAndWait { try context.fetch(FetchRequest<Profile>(sortBy: [SortDescriptor(\.rank)])).map(\.username) }
        #expect(names == ["ann", "bob", "cy"])
        // Among the updated objects themselves: the first by ID holds the value.
        let among = violation {
            try context.performAndWait { _ = try context.execute(BatchUpdate<Profile>(where: #Predicate { $0.rank >= 1 }, set: \.username, to: "dee")) }
        }
        #expect(among?.map(\.objectID) == [ids[2]])
        #expect(among?.map(\.conflictingObjectID) == [ids[1]])
        // One object may take a free value.
        try context.performAndWait { () throws in
            #expect(try context.execute(BatchUpdate<Profile>(where: #Predicate { $0.rank == 2 }, set: \.username, to: "dee")).count == 1)
        }
    }
}
