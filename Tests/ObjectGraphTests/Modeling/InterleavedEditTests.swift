import Foundation
@testable import ObjectGraph
import Testing

/// Two contexts edit one relationship, then both save: the scenarios the concurrent mode of the
/// model-based tests found, reduced. After every save both sides of the relationship agree, in
/// each context and in the store, and each context agrees with a fresh fetch.
@Suite("interleaved edits in two contexts keep both sides of a relationship in step")
struct InterleavedEditTests {
    /// `save` with its rows in the order given: a merge must not depend on the order in which
    /// a save lists the rows it wrote.
    static func reordering(_ save: DidSave, linkerFirst: Bool, isLinker: (ObjectID) -> Bool) -> DidSave {
        let rows = save.rows.filter { isLinker($0.id) == linkerFirst } + save.rows.filter { isLinker($0.id) != linkerFirst }
        return DidSave(
            insertedIDs: save.insertedIDs, updatedIDs: save.updatedIDs, deletedIDs: save.deletedIDs,
            changedKeys: save.changedKeys, rows: rows, origin: save.origin, sequence: save.sequence)
    }

    /// Saves `context` and returns what it broadcast.
    static func savedChanges(of context: ManagedObjectContext) throws -> DidSave {
        try context.performAndWait {
            var saves: [DidSave] = []
            let subscription = context.didSave.sink { saves.append($0) }
            try context.save()
            subscription.cancel()
            return try #require(saves.first)
        }
    }

    @Test(
        "a member removed in one context leaves, though a sibling moved it by removing and inserting it (ordered)",
        arguments: StoreFlavor.allCases, [true, false])
    func removalBeatsMoveThroughRemoveAndInsert(flavor: StoreFlavor, linkerFirst: Bool) throws {
        let container = try flavor.makeContainer(model: OrderedModel.model)
        let view = container.viewContext
        let background = container.newBackgroundContext(name: "background")
        background.automaticallyMergesChangesFromSiblings = false
        let list = try view.performAndWait { try OrderedRelationshipTests.savedPlaylist(["a", "b"], in: view) }
        let (playlistID, trackA) = view.performAndWait { (list.objectID!, list.tracks[0].objectID!) }
        let held = background.performAndWait { background.required(playlistID, as: Playlist.self).tracks }

        view.performAndWait { _ = list.tracks.remove(at: 0) }
        background.performAndWait {
            let playlist = background.required(playlistID, as: Playlist.self)
            // A move written as most code writes it: each step sets the array, and the removal
            // clears the member's to-one for a moment.
            playlist.tracks.insert(playlist.tracks.remove(at: 0), at: 1)
        }
        let save = try Self.savedChanges(of: view)
        background.performAndWait {
            background.mergeChanges(from: Self.reordering(save, linkerFirst: linkerFirst) { $0 == trackA })
            let playlist = background.required(playlistID, as: Playlist.self)
            #expect(playlist.tracks.map(\.title) == ["b"])
            #expect(background.required(trackA, as: Track.self).playlist == nil)
        }
        try background.performAndWait { try background.save() }
        view.flush()
        #expect(OrderedRelationshipTests.storedTitles(playlistID, in: container) == ["b"])
        let fresh = container.newBackgroundContext(name: "fresh")
        fresh.performAndWait { #expect(fresh.required(trackA, as: Track.self).playlist == nil) }
        #expect(view.performAndWait { list.tracks.map(\.title) } == ["b"])
        withExtendedLifetime(held) {}
    }

    @Test(
        "a member removed in one context leaves, though a sibling removed and inserted it again among other changes (set)",
        arguments: StoreFlavor.allCases, [true, false])
    func removalBeatsRemoveAndInsertInSet(flavor: StoreFlavor, linkerFirst: Bool) throws {
        let container = try CorrectnessModel.container(flavor)
        let view = container.viewContext
        let background = container.newBackgroundContext(name: "background")
        background.automaticallyMergesChangesFromSiblings = false
        let (shelfID, entryA) = try view.performAndWait {
            let shelf = Shelf(context: view)
            for title in ["a", "b"] {
                let entry = Entry(context: view)
                entry.title = title
                entry.shelf = shelf
            }
            try view.save()
            return (shelf.objectID!, shelf.entries.first { $0.title == "a" }!.objectID!)
        }
        let held = background.performAndWait { background.required(shelfID, as: Shelf.self).entries }

        view.performAndWait { view.required(entryA, as: Entry.self).shelf = nil }
        background.performAndWait {
            let shelf = background.required(shelfID, as: Shelf.self)
            let entry = background.required(entryA, as: Entry.self)
            shelf.entries.remove(entry)
            let added = Entry(context: background)
            added.title = "c"
            shelf.entries.insert(added)
            shelf.entries.insert(entry)
        }
        let save = try Self.savedChanges(of: view)
        background.performAndWait {
            background.mergeChanges(from: Self.reordering(save, linkerFirst: linkerFirst) { $0 == entryA })
            let shelf = background.required(shelfID, as: Shelf.self)
            #expect(Set(shelf.entries.map(\.title)) == ["b", "c"])
            #expect(background.required(entryA, as: Entry.self).shelf == nil)
        }
        try background.performAndWait { try background.save() }
        view.flush()
        let fresh = container.newBackgroundContext(name: "fresh")
        fresh.performAndWait {
            #expect(Set(fresh.required(shelfID, as: Shelf.self).entries.map(\.title)) == ["b", "c"])
            #expect(fresh.required(entryA, as: Entry.self).shelf == nil)
        }
        #expect(view.performAndWait { Set(view.required(shelfID, as: Shelf.self).entries.map(\.title)) } == ["b", "c"])
        withExtendedLifetime(held) {}
    }
}
