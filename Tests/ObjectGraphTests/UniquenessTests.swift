import Foundation
import ObjectGraph
import Testing

@Suite("uniqueness: a save that breaks a constraint fails, writes nothing and keeps the context")
struct UniquenessTests {
    /// The usernames a fresh context reads from the store, sorted.
    func storedUsernames(_ container: PersistentContainer) throws -> [String] {
        let reader = container.newBackgroundContext()
        return try reader.performAndWait { try reader.fetch(FetchRequest<Profile>()).map(\.username).sorted() }
    }

    @Test("inserting a username that is saved already names the entity, the property, the value and both objects", arguments: StoreFlavor.allCases)
    func againstStoredRow(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let alice = Profile.make("alice", in: context)
            try context.save()
            let second = Profile.make("alice", rank: 3, in: context)
            let conflicts = try #require(violation { try context.save() })
            #expect(conflicts == [UniquenessConflict(
                entityName: "Profile", propertyNames: ["username"], values: [.string("alice")],
                objectID: second.objectID!, conflictingObjectID: alice.objectID!)])
            #expect(ObjectGraphError.uniquenessViolation(conflicts).description.contains("Profile (username) = (\"alice\")"))
            // The context is as it was: the insert is pending, its values intact.
            #expect(context.insertedObjects == [second])
            #expect(second.isInserted && second.username == "alice" && second.rank == 3)
            #expect(context.hasChanges)
        }
        #expect(try storedUsernames(container) == ["alice"])
    }

    @Test("after the error, fixing the value and saving again succeeds", arguments: StoreFlavor.allCases)
    func fixAndRetry(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            Profile.make("alice", in: context)
            try context.save()
            let second = Profile.make("alice", in: context)
            let club = Club.make("Chess", in: context)
            second.club = club
            #expect(violation { try context.save() } != nil)
            #expect(club.isInserted && club.members == [second])
            second.username = "bob"
            try context.save()
            #expect(!context.hasChanges && !second.isInserted)
        }
        #expect(try storedUsernames(container) == ["alice", "bob"])
    }

    @Test("two objects inserted with the same value in one save collide with each other", arguments: StoreFlavor.allCases)
    func withinOneSave(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let first = Profile.make("carol", in: context)
            let second = Profile.make("carol", in: context)
            let unrelated = Profile.make("dave", in: context)
            let conflicts = try #require(violation { try context.save() })
            // Inserts are checked in the order they were made: the later one collides.
            #expect(conflicts.map(\.objectID) == [second.objectID!])
            #expect(conflicts.map(\.conflictingObjectID) == [first.objectID!])
            #expect(context.insertedObjects == [first, second, unrelated])
        }
        #expect(try storedUsernames(container) == [])
    }

    @Test("an update to a saved value collides; objects may trade values in one save", arguments: StoreFlavor.allCases)
    func updatesAndSwaps(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let erin = Profile.make("erin", in: context)
            let frank = Profile.make("frank", in: context)
            try context.save()

            frank.username = "erin"
            let conflicts = try #require(violation { try context.save() })
            #expect(conflicts.map(\.objectID) == [frank.objectID!])
            #expect(frank.isUpdated && frank.username == "erin")

            // A swap is fine: what counts is the state the save leaves.
            erin.username = "frank"
            try context.save()
            // So is freeing a value by deleting its holder in the same save.
            Profile.make("erin", in: context)
            context.delete(frank)
            try context.save()
        }
        #expect(try storedUsernames(container) == ["erin", "frank"])
    }

    @Test("a compound constraint collides only when every property is equal", arguments: StoreFlavor.allCases)
    func compound(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let chess = Club.make("Chess", in: context)
            let go = Club.make("Go", in: context)
            let first = Profile.make("a", rank: 1, club: chess, in: context)
            Profile.make("b", rank: 1, club: go, in: context)
            Profile.make("c", rank: 1, in: context)
            try context.save()

            let clash = Profile.make("d", rank: 1, club: chess, in: context)
            let conflicts = try #require(violation { try context.save() })
            #expect(conflicts == [UniquenessConflict(
                entityName: "Profile", propertyNames: ["club", "rank"], values: [.object(chess.objectID!), .integer(1)],
                objectID: clash.objectID!, conflictingObjectID: first.objectID!)])
            clash.rank = 2
            try context.save()
        }
    }

    @Test("nil never collides: optional unique attributes may be nil on many objects", arguments: StoreFlavor.allCases)
    func optionalNils(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for name in ["g", "h", "i"] { Profile(context: context).username = name }
            try context.save()
            let withEmail = Profile.make("j", in: context)
            withEmail.email = "j@example.com"
            try context.save()
            let sameEmail = Profile.make("k", in: context)
            sameEmail.email = "j@example.com"
            #expect(violation { try context.save() }?.map(\.propertyNames) == [["email"]])
        }
    }

    @Test("strings are equal as Swift's == says: composed and decomposed forms collide", arguments: StoreFlavor.allCases)
    func canonicalEquivalence(flavor: StoreFlavor) throws {
        let composed = "Ren\u{E9}e"
        let decomposed = "Rene\u{301}e"
        #expect(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8))
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            Profile(context: context).username = composed
            try context.save()
            let other = Profile(context: context)
            other.username = decomposed
            #expect(violation { try context.save() }?.count == 1)
            // Case still counts, as in Swift.
            other.username = "ren\u{E9}e"
            try context.save()
        }
    }

    @Test("sub-entities share their hierarchy's constraint; one a sub-entity declares covers only its rows", arguments: StoreFlavor.allCases)
    func subentities(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let item = Item(context: context)
            item.code = "X1"
            item.label = "shared label"
            let gadget = Gadget(context: context)
            gadget.code = "G1"
            gadget.label = "shared label"  // unique among gadgets only
            try context.save()

            let widget = Widget(context: context)
            widget.code = "X1"  // codes are unique across Item, Gadget and Widget
            let conflicts = try #require(violation { try context.save() })
            #expect(conflicts.map(\.conflictingObjectID) == [item.objectID!])
            #expect(conflicts.map(\.entityName) == ["Item"])
            widget.code = "W1"
            widget.label = "shared label"  // a widget is not a gadget
            try context.save()

            let secondGadget = Gadget(context: context)
            secondGadget.code = "G2"
            secondGadget.label = "shared label"
            let gadgetConflicts = try #require(violation { try context.save() })
            #expect(gadgetConflicts.map(\.entityName) == ["Gadget"])
            #expect(gadgetConflicts.map(\.conflictingObjectID) == [gadget.objectID!])
        }
    }

    @Test("doubles and dates collide as Swift's == says: -0.0 equals 0.0, NaN equals nothing", arguments: StoreFlavor.allCases)
    func doublesAndDates(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let zero = Reading(context: context)
            zero.value = 0.0
            zero.takenAt = Date(timeIntervalSinceReferenceDate: 1)
            let nan = Reading(context: context)
            nan.value = .nan
            nan.takenAt = Date(timeIntervalSinceReferenceDate: 2)
            let otherNaN = Reading(context: context)
            otherNaN.value = .nan
            otherNaN.takenAt = Date(timeIntervalSinceReferenceDate: -0.0)
            try context.save()

            let negativeZero = Reading(context: context)
            negativeZero.value = -0.0
            negativeZero.takenAt = Date(timeIntervalSinceReferenceDate: 0.0)
            let conflicts = try #require(violation { try context.save() })
            #expect(conflicts.map(\.propertyNames) == [["value"], ["takenAt"]])
            #expect(conflicts.map(\.conflictingObjectID) == [zero.objectID!, otherNaN.objectID!])
        }
    }

    @Test("a save of thousands of inserts with collisions in its middle: every collision named, against stored rows and earlier inserts alike, nothing written; fixed, it all saves",
          arguments: StoreFlavor.allCases)
    func collisionsMidBatch(flavor: StoreFlavor) throws {
        let container = try UniquenessModel.container(flavor)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let stored = Profile.make("user-700", in: context)
            try context.save()
            let club = Club.make("Chess", in: context)
            // 2,500 inserts: more than one multi-row statement's worth on PostgreSQL.
            let profiles = (0..<2_500).map { index in
                let profile = Profile.make("user-\(index)", rank: index, in: context)
                if index % 100 == 0 { profile.following = [club] }
                return profile
            }
            // Collides with the stored row, with an earlier insert in its own statement, and
            // with one a statement before; then the email of one with that of another.
            profiles[1_200].username = "user-1100"
            profiles[2_100].username = "user-5"
            profiles[300].email = "x@example.com"
            profiles[2_400].email = "x@example.com"
            let conflicts = try #require(violation { try context.save() })
            let expected: [(ObjectID?, ObjectID?)] = [
                (profiles[700].objectID, stored.objectID), (profiles[1_200].objectID, profiles[1_100].objectID),
                (profiles[2_100].objectID, profiles[5].objectID), (profiles[2_400].objectID, profiles[300].objectID),
            ]
            #expect(conflicts.count == expected.count, "\(conflicts)")
            for (objectID, conflicting) in expected {
                #expect(conflicts.contains { $0.objectID == objectID && $0.conflictingObjectID == conflicting }, "\(conflicts)")
            }
            #expect(context.insertedObjects.count == 2_501)
            profiles[700].username = "fixed-700"
            profiles[1_200].username = "fixed-1200"
            profiles[2_100].username = "fixed-2100"
            profiles[2_400].email = "y@example.com"
            try context.save()
        }
        let usernames = try storedUsernames(container)
        #expect(usernames.count == 2_501 && Set(usernames).count == 2_501)
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let chess = try #require(try reader.fetch(FetchRequest<Club>()).first)
            #expect(chess.followers.count == 25)
        }
    }
}
