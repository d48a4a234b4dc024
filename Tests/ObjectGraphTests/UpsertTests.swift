import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

@Suite("uniqueness: upsert makes an inserted object the one it collides with")
struct UpsertTests {
    typealias Changes = TestSubscriber<CollectionDifference<Profile>, ObjectGraphError>

    static let byUsername = FetchRequest<Profile>(sortBy: [SortDescriptor(\.username)])

    /// Saves a profile `alice` (rank 1, in the club "Go", following "Go") and returns its ID.
    func saveAlice(_ container: PersistentContainer) throws -> ObjectID {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let go = Club.make("Go", in: context)
            let alice = Profile.make("alice", rank: 1, club: go, in: context)
            alice.following = [go]
            try context.save()
            return alice.objectID!
        }
    }

    /// Every profile as a fresh context reads it: username, rank, club name, followed club names.
    func stored(_ container: PersistentContainer) throws -> [String] {
        let reader = container.newBackgroundContext()
        return try reader.performAndWait {
            try reader.fetch(Self.byUsername).map { profile in
                "\(profile.username) \(profile.rank) \(profile.club?.name ?? "-") \(profile.following.map(\.name).sorted())"
            }
        }
    }

    @Test("the existing row takes the inserted values, and the inserted object takes its ID", arguments: StoreFlavor.allCases)
    func againstStoredRow(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let aliceID = try saveAlice(container)
        let importer = container.newBackgroundContext()
        try importer.performAndWait {
            importer.uniquenessPolicy = .upsert
            let chess = Club.make("Chess", in: importer)
            let incoming = Profile.make("alice", rank: 7, club: chess, in: importer)
            incoming.following = [chess]
            try importer.save()
            #expect(incoming.objectID == aliceID)
            #expect(!incoming.isInserted && !incoming.hasChanges && !importer.hasChanges)
            #expect(importer.object(with: aliceID) === incoming)
            #expect(chess.members == [incoming])
            // To-many relationships add up; attributes and to-one relationships are replaced.
            #expect(Set(incoming.following.map(\.name)) == ["Chess", "Go"])
            let go = try #require(try importer.fetch(FetchRequest<Club>(predicate: #Predicate { $0.name == "Go" })).first)
            #expect(go.members.isEmpty)
        }
        #expect(try stored(container) == ["alice 7 Chess [\"Chess\", \"Go\"]"])
    }

    @Test("a context holding the existing object sees it updated, and its live results change in place", arguments: StoreFlavor.allCases)
    func siblingAndLiveResults(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let aliceID = try saveAlice(container)
        let view = container.viewContext
        let held = try view.performAndWait { try #require(view.object(with: aliceID, as: Profile.self)) }
        let subscriber = Changes()
        view.changesPublisher(for: Self.byUsername).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }

        let importer = container.newBackgroundContext()
        try importer.performAndWait {
            importer.uniquenessPolicy = .upsert
            Profile.make("alice", rank: 9, in: importer)
            try importer.save()
        }
        view.flush()
        view.performAndWait {
            #expect(held.rank == 9 && !held.isDeleted)
            #expect(view.object(with: aliceID) === held)
            let differences = subscriber.values
            #expect(differences.count == 2)
            // An update: a removal and an insertion of the same object at the same offset.
            let update = differences.last
            #expect(update?.removals.map(\.offset) == [0] && update?.insertions.map(\.offset) == [0])
            #expect(update?.insertions.map(\.changedElement) == [held])
        }
        #expect(try stored(container).count == 1)
    }

    @Test("in the saving context, an object that stood for the row leaves it, reported deleted; live results keep one object", arguments: StoreFlavor.allCases)
    func savingContextHeldTheRow(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let aliceID = try saveAlice(container)
        let importer = container.newBackgroundContext()
        let subscriber = Changes()
        importer.changesPublisher(for: Self.byUsername).subscribe(subscriber)
        var deletedReported: [ManagedObject] = []
        let observation = importer.objectsDidChange.sink { deletedReported += $0.deleted }
        try importer.performAndWait {
            subscriber.request(.unlimited)
            importer.uniquenessPolicy = .upsert
            let existing = try #require(importer.object(with: aliceID, as: Profile.self))
            existing.rank = 2  // an unsaved change the inserted object builds on
            let incoming = Profile.make("alice", in: importer)
            incoming.city = "Oslo"
            importer.processPendingChanges()
            #expect(try importer.fetch(Self.byUsername).count == 2)
            try importer.save()
            #expect(existing.isDeleted)
            #expect(deletedReported.contains { $0 === existing })
            #expect(importer.object(with: aliceID) === incoming)
            #expect(incoming.rank == 0 && incoming.city == "Oslo")
            var mirror: [Profile] = []
            for difference in subscriber.values { mirror = mirror.applying(difference) ?? [] }
            #expect(mirror == [incoming])
            #expect(try importer.fetch(Self.byUsername) == [incoming])
        }
        observation.cancel()
        // A to-one relationship is replaced even by nil; to-many ones add up.
        #expect(try stored(container) == ["alice 0 - [\"Go\"]"])
    }

    @Test("two objects inserted with the same value in one save become one: the later one's values win", arguments: StoreFlavor.allCases)
    func withinOneSave(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            context.uniquenessPolicy = .upsert
            let first = Profile.make("bob", rank: 1, in: context)
            let second = Profile.make("bob", rank: 2, in: context)
            let firstID = first.objectID
            try context.save()
            #expect(first.isDeleted && !second.isDeleted)
            #expect(second.objectID == firstID)
            #expect(context.registeredObjects.count == 1)
        }
        #expect(try stored(container) == ["bob 2 - []"])
    }

    @Test("upsert applies to inserts only: an update that collides still fails and changes nothing", arguments: StoreFlavor.allCases)
    func updatesStillFail(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        _ = try saveAlice(container)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            context.uniquenessPolicy = .upsert
            let bob = Profile.make("bob", in: context)
            try context.save()
            bob.username = "alice"
            #expect(violation { try context.save() }?.map(\.objectID) == [bob.objectID!])
            #expect(bob.isUpdated && bob.username == "alice")
        }
    }

    @Test("an insert that collides with two different objects fails and leaves the context as it was", arguments: StoreFlavor.allCases)
    func ambiguous(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        _ = try saveAlice(container)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let bob = Profile.make("bob", in: context)
            bob.email = "bob@example.com"
            try context.save()
            context.uniquenessPolicy = .upsert
            let incoming = Profile.make("alice", in: context)
            incoming.email = "bob@example.com"
            let incomingID = incoming.objectID
            #expect(violation { try context.save() }?.count == 2)
            #expect(incoming.isInserted && incoming.objectID == incomingID && !bob.isDeleted)
            #expect(context.insertedObjects == [incoming])
        }
        #expect(try stored(container).count == 2)
    }
}

@Suite("uniqueness: upsert never changes an object's class")
struct UpsertAcrossEntitiesTests {
    @Test("an inserted object that collides with an object of another entity of its hierarchy fails as under .error", arguments: StoreFlavor.allCases)
    func otherEntity(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let item = Item(context: context)
            item.code = "X1"
            try context.save()
            context.uniquenessPolicy = .upsert
            let widget = Widget(context: context)
            widget.code = "X1"
            widget.size = 2
            #expect(violation { try context.save() }?.map(\.conflictingObjectID) == [item.objectID!])
            #expect(widget.isInserted && context.insertedObjects == [widget] && !item.isDeleted)
        }
    }
}

extension CollectionDifference.Change {
    var offset: Int {
        switch self {
        case let .insert(offset, _, _), let .remove(offset, _, _): offset
        }
    }

    var changedElement: ChangeElement {
        switch self {
        case let .insert(_, element, _), let .remove(_, element, _): element
        }
    }
}
