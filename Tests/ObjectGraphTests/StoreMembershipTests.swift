@testable import ObjectGraph
import Testing

/// Saves whose two sides of a relationship disagree, written to each store directly: the store
/// keeps one source of membership (a one-to-many's key in the member's row, a many-to-many's
/// pairs), so each store reads back the same thing, whatever the save sent for the other side.
@Suite("store membership: one source of truth for each relationship, in both stores")
struct StoreMembershipTests {
    typealias Stores = MembershipStores

    static let rack1 = Stores.id("Rack", 1)
    static let rack2 = Stores.id("Rack", 2)
    static let reel1 = Stores.id("Reel", 1)
    static let reel2 = Stores.id("Reel", 2)
    static let reel3 = Stores.id("Reel", 3)
    static let badge1 = Stores.id("Badge", 1)

    func targets(_ store: any PersistentStore, _ id: ObjectID, _ name: String) throws -> [ObjectID] {
        try store.targets(of: id, relationship: Stores.property(id.entity.name, name))
    }

    func insert(_ stores: Stores, _ rows: [StoredRow]) throws {
        for (_, store) in stores.stores { _ = try store.save(StoreChanges(inserted: rows), policy: .error) }
    }

    /// Saves one update per store, each read from that store (with its to-many relationships).
    func update(_ stores: Stores, _ id: ObjectID, _ values: [String: PropertyValue]) throws {
        for (_, store) in stores.stores {
            let base = try #require(try Stores.loaded(id, in: store))
            _ = try store.save(StoreChanges(updated: [Stores.update(base, values)]), policy: .error)
        }
    }

    @Test("an owner's to-many sent without the members' keys makes no member")
    func ownersToManyAlone() throws {
        let stores = try Stores()
        try insert(stores, [Stores.row(Self.rack1), Stores.row(Self.reel1, ["code": .string("a")])])
        try update(stores, Self.rack1, ["reels": .objects([Self.reel1]), "queue": .orderedObjects([Self.reel1])])
        for (name, store) in stores.stores {
            #expect(try targets(store, Self.rack1, "reels") == [], "\(name)")
            #expect(try targets(store, Self.rack1, "queue") == [], "\(name)")
            #expect(try store.row(for: Self.reel1)?.slots[Stores.property("Reel", "rack").index] == .null, "\(name)")
        }
    }

    @Test("a member's key sent without the owner's to-many makes it a member, inserted or updated")
    func membersKeyAlone() throws {
        let stores = try Stores()
        try insert(stores, [Stores.row(Self.rack1), Stores.row(Self.reel1, ["code": .string("a")])])
        try update(stores, Self.reel1, ["rack": .object(Self.rack1), "queuedOn": .object(Self.rack1)])
        try insert(stores, [Stores.row(Self.reel2, ["code": .string("b"), "rack": .object(Self.rack1), "queuedOn": .object(Self.rack1)])])
        for (name, store) in stores.stores {
            #expect(try Set(targets(store, Self.rack1, "reels")) == [Self.reel1, Self.reel2], "\(name)")
            // Members that no list placed come last, by key.
            #expect(try targets(store, Self.rack1, "queue") == [Self.reel1, Self.reel2], "\(name)")
        }
    }

    @Test("each side of a many-to-many adds and removes pairs that the other side then reads")
    func manyToManySidesDisagree() throws {
        let stores = try Stores()
        try insert(stores, [
            Stores.row(Self.reel1, ["code": .string("a"), "badges": .objects([Self.badge1]), "rankedBy": .orderedObjects([Self.badge1])]),
            Stores.row(Self.badge1, ["reels": .objects([Self.reel1]), "ranked": .orderedObjects([Self.reel1])]),
        ])
        // Only the badge's side says the pair goes.
        try update(stores, Self.badge1, ["reels": .objects([]), "ranked": .orderedObjects([])])
        for (name, store) in stores.stores {
            #expect(try targets(store, Self.reel1, "badges") == [], "\(name)")
            #expect(try targets(store, Self.reel1, "rankedBy") == [], "\(name)")
        }
        // Only the reel's side says it comes back.
        try update(stores, Self.reel1, ["badges": .objects([Self.badge1]), "rankedBy": .orderedObjects([Self.badge1])])
        for (name, store) in stores.stores {
            #expect(try targets(store, Self.badge1, "reels") == [Self.reel1], "\(name)")
            #expect(try targets(store, Self.badge1, "ranked") == [Self.reel1], "\(name)")
        }
    }

    @Test("an ordered list naming an object whose key points elsewhere keeps to the members")
    func orderedListNamesAnotherOwnersMember() throws {
        let stores = try Stores()
        try insert(stores, [
            Stores.row(Self.rack1, ["queue": .orderedObjects([Self.reel1])]),
            Stores.row(Self.rack2, ["queue": .orderedObjects([Self.reel2])]),
            Stores.row(Self.reel1, ["code": .string("a"), "queuedOn": .object(Self.rack1)]),
            Stores.row(Self.reel2, ["code": .string("b"), "queuedOn": .object(Self.rack2)]),
        ])
        try update(stores, Self.rack1, ["queue": .orderedObjects([Self.reel2, Self.reel1])])
        for (name, store) in stores.stores {
            #expect(try targets(store, Self.rack1, "queue") == [Self.reel1], "\(name)")
            #expect(try targets(store, Self.rack2, "queue") == [Self.reel2], "\(name)")
            #expect(try store.row(for: Self.reel2)?.slots[Stores.property("Reel", "queuedOn").index] == .object(Self.rack2), "\(name)")
        }
    }

    @Test("an object that leaves an ordered list by its key and comes back comes last, not at its old place")
    func memberComesBackLast() throws {
        let stores = try Stores()
        try insert(stores, [
            Stores.row(Self.rack1, ["queue": .orderedObjects([Self.reel1, Self.reel2, Self.reel3])]),
            Stores.row(Self.rack2),
            Stores.row(Self.reel1, ["code": .string("a"), "queuedOn": .object(Self.rack1)]),
            Stores.row(Self.reel2, ["code": .string("b"), "queuedOn": .object(Self.rack1)]),
            Stores.row(Self.reel3, ["code": .string("c"), "queuedOn": .object(Self.rack1)]),
        ])
        try update(stores, Self.reel1, ["queuedOn": .object(Self.rack2)])
        try update(stores, Self.reel1, ["queuedOn": .object(Self.rack1)])
        for (name, store) in stores.stores {
            #expect(try targets(store, Self.rack1, "queue") == [Self.reel2, Self.reel3, Self.reel1], "\(name)")
        }
        // The same through a many-to-many pair that one side removes and the other adds back.
        try insert(stores, [Stores.row(Self.badge1, ["ranked": .orderedObjects([Self.reel1, Self.reel2])])])
        try update(stores, Self.reel1, ["rankedBy": .orderedObjects([])])
        try update(stores, Self.reel1, ["rankedBy": .orderedObjects([Self.badge1])])
        for (name, store) in stores.stores {
            #expect(try targets(store, Self.badge1, "ranked") == [Self.reel2, Self.reel1], "\(name)")
        }
    }

    @Test("a key moved away from an owner the saving context did not know reports that owner, unless the store keeps the key")
    func staleKeyMove() throws {
        for policy in [MergePolicy.storeWins, .objectWins] {
            let stores = try Stores()
            try insert(stores, [
                Stores.row(Self.rack1), Stores.row(Self.rack2), Stores.row(Stores.id("Rack", 3)),
                Stores.row(Self.reel1, ["code": .string("a"), "rack": .object(Self.rack1)]),
            ])
            var stale: [StoredRow] = []
            for (_, store) in stores.stores { stale.append(try #require(try store.row(for: Self.reel1))) }
            try update(stores, Self.reel1, ["rack": .object(Self.rack2)])
            for (index, (name, store)) in stores.stores.enumerated() {
                let result = try store.save(StoreChanges(updated: [Stores.update(stale[index], ["rack": .object(Stores.id("Rack", 3))])]), policy: policy)
                let rackSlot = Stores.property("Reel", "rack").index
                if policy == .storeWins {
                    #expect(result.detached.isEmpty, "\(name): \(result.detached)")
                    #expect(try store.row(for: Self.reel1)?.slots[rackSlot] == .object(Self.rack2), "\(name)")
                    #expect(try store.row(for: Self.rack2)?.version == 1, "\(name)")
                } else {
                    #expect(result.detached[Self.rack2]?.keys == ["reels"], "\(name): \(result.detached)")
                    #expect(try store.row(for: Self.rack2)?.version == 2, "\(name)")
                    #expect(try targets(store, Self.rack2, "reels") == [], "\(name)")
                }
            }
        }
    }

    @Test("a relationship that is its own inverse reads its pairs one way in both stores, as SQLite's one join table does")
    func ownInverseReadsOneWay() throws {
        let stores = try Stores(model: SQLiteFixture.shapesModel)
        let person = SQLiteFixture.shapesModel.entity(named: "Person")!
        let friends = person.property(named: "friends")!
        let (ann, bob) = (ObjectID(entity: person, primaryKey: 1), ObjectID(entity: person, primaryKey: 2))
        func row(_ id: ObjectID) -> StoredRow {
            StoredRow(id: id, version: 1, slots: person.properties.map { $0.relationship?.emptyValue ?? .string("") })
        }
        try insert(stores, [row(ann), row(bob)])
        for (name, store) in stores.stores {
            let base = try #require(try store.row(for: ann))
            let update = RowUpdate(id: ann, baseVersion: base.version, changes: [friends.index: .objects([bob])], committed: base.slots)
            _ = try store.save(StoreChanges(updated: [update]), policy: .error)
            #expect(try store.targets(of: ann, relationship: friends) == [bob], "\(name)")
            #expect(try store.targets(of: bob, relationship: friends) == [], "\(name)")
        }
    }
}
