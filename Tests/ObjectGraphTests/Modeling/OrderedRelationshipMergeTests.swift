import Foundation
@testable import ObjectGraph
import Testing

/// Records the titles of the playlists a controller reports as updated.
final class PlaylistUpdates: FetchedResultsControllerDelegate {
    var updated: [String] = []

    func controller(_ controller: FetchedResultsController<Playlist>, didChange object: Playlist, at indexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {
        if type == .update || type == .move { updated.append(object.name) }
    }
}

@Suite("ordered to-many relationships: merges and live results")
struct OrderedRelationshipMergeTests {
    struct Setup {
        let container: PersistentContainer
        let view: ManagedObjectContext
        let background: ManagedObjectContext
        let playlist: ObjectID
        let tracks: [ObjectID]

        init(_ flavor: StoreFlavor, titles: [String] = ["a", "b", "c"]) throws {
            container = try flavor.makeContainer(model: OrderedModel.model)
            view = container.viewContext
            background = container.newBackgroundContext()
            let view = view
            let playlist = try view.performAndWait { try OrderedRelationshipTests.savedPlaylist(titles, in: view) }
            self.playlist = view.performAndWait { playlist.objectID! }
            tracks = view.performAndWait { playlist.tracks.map(\.objectID!) }
            background.flush()
        }

        func titles(in context: ManagedObjectContext) -> [String] {
            context.performAndWait { context.required(playlist, as: Playlist.self).tracks.map(\.title) }
        }
    }

    @Test("a reorder saved in one context reaches a sibling that read the relationship", arguments: StoreFlavor.allCases)
    func reorderReachesSibling(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        #expect(setup.titles(in: setup.view) == ["a", "b", "c"])
        try setup.background.performAndWait {
            setup.background.required(setup.playlist, as: Playlist.self).tracks.reverse()
            try setup.background.save()
        }
        setup.view.flush()
        #expect(setup.titles(in: setup.view) == ["c", "b", "a"])
        #expect(setup.view.performAndWait { !setup.view.hasChanges })
    }

    @Test("a reorder in one context and an insert in another both survive, whichever saves first", arguments: StoreFlavor.allCases, [true, false])
    func reorderAndInsert(flavor: StoreFlavor, reorderFirst: Bool) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        let held = [view, background].map { context in
            context.performAndWait { context.required(setup.playlist, as: Playlist.self) }
        }
        defer { withExtendedLifetime(held) {} }
        func reorder() throws {
            try view.performAndWait {
                view.required(setup.playlist, as: Playlist.self).tracks.reverse()
                try view.save()
            }
        }
        func insert() throws {
            try background.performAndWait {
                let track = Track(context: background)
                track.title = "n"
                background.required(setup.playlist, as: Playlist.self).tracks.insert(track, at: 1)
                try background.save()
            }
        }
        if reorderFirst {
            // The inserting context has unsaved changes when the reorder arrives.
            background.performAndWait {
                let track = Track(context: background)
                track.title = "n"
                background.required(setup.playlist, as: Playlist.self).tracks.insert(track, at: 1)
            }
            try reorder()
            background.flush()
            #expect(setup.titles(in: background) == ["c", "b", "a", "n"], "the reorder taken in, the insert kept after its local predecessor")
            try background.performAndWait { try background.save() }
        } else {
            // The reordering context has an unsaved reorder when the insert arrives.
            view.performAndWait { view.required(setup.playlist, as: Playlist.self).tracks.reverse() }
            try insert()
            view.flush()
            #expect(setup.titles(in: view) == ["c", "b", "a", "n"], "the local reorder kept, the sibling's member after it")
            try view.performAndWait { try view.save() }
        }
        view.flush()
        background.flush()
        let expected = ["c", "b", "a", "n"]
        #expect(OrderedRelationshipTests.storedTitles(setup.playlist, in: setup.container) == expected)
        #expect(setup.titles(in: view) == expected && setup.titles(in: background) == expected, "no context keeps a stale array")
        #expect(view.performAndWait { !view.hasChanges } && background.performAndWait { !background.hasChanges })
    }

    @Test("a save whose base is behind merges in the store: two reorders end in the later one's order; a sibling's new member stays", arguments: StoreFlavor.allCases)
    func mergeInStore(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        background.automaticallyMergesChangesFromSiblings = false
        // Held, so that the context keeps the order it read (a context holds its objects weakly).
        let held = background.performAndWait {
            let playlist = background.required(setup.playlist, as: Playlist.self)
            return (playlist, playlist.tracks)
        }
        try view.performAndWait {
            let playlist = view.required(setup.playlist, as: Playlist.self)
            let track = Track(context: view)
            track.title = "n"
            playlist.tracks.append(track)
            playlist.tracks.swapAt(0, 1)
            try view.save()
        }
        try background.performAndWait {
            background.required(setup.playlist, as: Playlist.self).tracks.reverse()
            try background.save()
        }
        #expect(OrderedRelationshipTests.storedTitles(setup.playlist, in: setup.container) == ["c", "b", "a", "n"])
        #expect(setup.titles(in: background) == ["c", "b", "a", "n"], "the saving context takes the merged order in")
        withExtendedLifetime(held) {}
    }

    @Test("a member deleted in a sibling leaves the array of a context that has it, unsaved changes or not", arguments: StoreFlavor.allCases)
    func deletedMemberLeaves(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        view.performAndWait {
            let playlist = view.required(setup.playlist, as: Playlist.self)
            playlist.tracks.swapAt(0, 2)
        }
        try background.performAndWait {
            background.delete(background.required(setup.tracks[1], as: Track.self))
            try background.save()
        }
        view.flush()
        #expect(setup.titles(in: view) == ["c", "a"])
        try view.performAndWait { try view.save() }
        #expect(OrderedRelationshipTests.storedTitles(setup.playlist, in: setup.container) == ["c", "a"])
    }

    @Test("a fetched-results controller reports the owner as updated when only its order changes, here or in a sibling", arguments: StoreFlavor.allCases)
    func liveResults(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        let updates = PlaylistUpdates()
        let controller = try view.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: FetchRequest<Playlist>(sortBy: [SortDescriptor(\.name)]), context: view)
            controller.delegate = updates
            try controller.performFetch()
            view.required(setup.playlist, as: Playlist.self).tracks.swapAt(0, 1)
            try view.save()
            return controller
        }
        #expect(updates.updated == ["list"])
        try background.performAndWait {
            background.required(setup.playlist, as: Playlist.self).tracks.reverse()
            try background.save()
        }
        view.flush()
        #expect(updates.updated == ["list", "list"])
        withExtendedLifetime(controller) {}
    }

    @Test("relationshipKeyPathsForRefreshing reaches through an array: a member's change updates the owner", arguments: StoreFlavor.allCases)
    func refreshingThroughArray(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let (view, background) = (setup.view, setup.background)
        let updates = PlaylistUpdates()
        var request = FetchRequest<Playlist>(sortBy: [SortDescriptor(\.name)])
        request.relationshipKeyPathsForRefreshing = ["tracks.title"]
        let controller = try view.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: request, context: view)
            controller.delegate = updates
            try controller.performFetch()
            return controller
        }
        try background.performAndWait {
            background.required(setup.tracks[2], as: Track.self).title = "z"
            try background.save()
        }
        view.flush()
        #expect(updates.updated == ["list"])
        withExtendedLifetime(controller) {}
    }
}
