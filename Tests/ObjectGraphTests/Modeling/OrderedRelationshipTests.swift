import Foundation
@testable import ObjectGraph
import Testing

@Suite("ordered to-many relationships")
struct OrderedRelationshipTests {
    /// A saved playlist of tracks titled `titles`, in that order.
    static func savedPlaylist(_ titles: [String], in context: ManagedObjectContext) throws -> Playlist {
        let playlist = Playlist(context: context)
        playlist.name = "list"
        playlist.tracks = titles.map { title in
            let track = Track(context: context)
            track.title = title
            return track
        }
        try context.save()
        return playlist
    }

    /// What a brand-new context of `container` reads: the titles of `id`'s tracks.
    static func storedTitles(_ id: ObjectID, in container: PersistentContainer) -> [String] {
        let fresh = container.newBackgroundContext(name: "fresh")
        return fresh.performAndWait { fresh.required(id, as: Playlist.self).tracks.map(\.title) }
    }

    @Test("an array relationship keeps its order through a save and a fetch in another context", arguments: StoreFlavor.allCases)
    func roundTrip(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: OrderedModel.model)
        let view = container.viewContext
        let titles = ["c", "a", "e", "b", "d"]
        let id = try view.performAndWait { try Self.savedPlaylist(titles, in: view).objectID! }
        #expect(Self.storedTitles(id, in: container) == titles)
    }

    @Test("reorders, inserts and removals are saved as the new order", arguments: StoreFlavor.allCases)
    func reorderSaved(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: OrderedModel.model)
        let view = container.viewContext
        let id = try view.performAndWait { () throws -> ObjectID in
            let playlist = try Self.savedPlaylist(["a", "b", "c", "d"], in: view)
            playlist.tracks.swapAt(0, 3)
            try view.save()
            return playlist.objectID!
        }
        #expect(Self.storedTitles(id, in: container) == ["d", "b", "c", "a"])
        try view.performAndWait {
            let playlist = view.required(id, as: Playlist.self)
            let new = Track(context: view)
            new.title = "n"
            playlist.tracks.insert(new, at: 1)
            playlist.tracks.removeLast()
            playlist.tracks.append(playlist.tracks.removeFirst())
            try view.save()
        }
        #expect(Self.storedTitles(id, in: container) == ["n", "b", "c", "d"])
    }

    @Test("the order survives closing and re-opening the file")
    func survivesReopening() throws {
        let url = TemporaryFolder.make().appendingPathComponent("ordered.sqlite")
        let id = try {
            let container = try PersistentContainer(model: OrderedModel.model, storeURL: url)
            defer { container.close() }
            let view = container.viewContext
            return try view.performAndWait { () throws -> ObjectID in
                let playlist = try Self.savedPlaylist(["x", "y", "z"], in: view)
                playlist.tracks.reverse()
                try view.save()
                return playlist.objectID!
            }
        }()
        let container = try PersistentContainer(model: OrderedModel.model, storeURL: url)
        defer { container.close() }
        #expect(Self.storedTitles(id, in: container) == ["z", "y", "x"])
    }

    @Test("many-to-many: an ordered side facing a set, and two ordered sides, each keep their own order", arguments: StoreFlavor.allCases)
    func manyToMany(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: OrderedModel.model)
        let view = container.viewContext
        let (trackID, otherID, artistIDs, genreIDs) = try view.performAndWait {
            let track = Track(context: view), other = Track(context: view)
            track.title = "t"
            other.title = "o"
            let genres = ["rock", "jazz", "pop"].map { label in
                let genre = Genre(context: view)
                genre.label = label
                return genre
            }
            let artists = ["ann", "bob"].map { name in
                let artist = Artist(context: view)
                artist.name = name
                return artist
            }
            track.genres = [genres[2], genres[0], genres[1]]
            track.credits = [artists[1], artists[0]]
            other.credits = [artists[0]]
            #expect(artists[0].works.map(\.title) == ["t", "o"], "the inverse appended in the order the links were made")
            artists[0].works.reverse()
            #expect(genres[2].tracks == [track], "the set side follows")
            try view.save()
            return (track.objectID!, other.objectID!, artists.map(\.objectID!), genres.map(\.objectID!))
        }
        let fresh = container.newBackgroundContext()
        fresh.performAndWait {
            let track = fresh.required(trackID, as: Track.self)
            #expect(track.genres.map(\.label) == ["pop", "rock", "jazz"])
            #expect(track.credits.map(\.name) == ["bob", "ann"])
            #expect(fresh.required(artistIDs[0], as: Artist.self).works.map(\.objectID) == [otherID, trackID])
            #expect(fresh.required(genreIDs[0], as: Genre.self).tracks.map(\.objectID) == [trackID])
        }
    }

    @Test("reordering alone is a change: hasChanges, updated objects, changed values; the same order again is none; rollback restores the order", arguments: StoreFlavor.allCases)
    func changeTracking(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: OrderedModel.model)
        let view = container.viewContext
        try view.performAndWait {
            let playlist = try Self.savedPlaylist(["a", "b", "c"], in: view)
            let tracks = playlist.tracks
            playlist.tracks = tracks
            #expect(!view.hasChanges, "the same order is no change")
            playlist.tracks = [tracks[1], tracks[0], tracks[2]]
            #expect(view.hasChanges && playlist.isUpdated && view.updatedObjects == [playlist])
            #expect(playlist.changedValues()["tracks"] == .orderedObjects([tracks[1], tracks[0], tracks[2]].map(\.objectID!)))
            #expect(tracks.allSatisfy { !$0.hasChanges }, "a reorder changes no member")
            playlist.tracks = tracks
            #expect(!view.hasChanges, "back to the saved order undoes the change")
            playlist.tracks.reverse()
            view.rollback()
            #expect(playlist.tracks.map(\.title) == ["a", "b", "c"] && !view.hasChanges)
        }
    }

    @Test("inverse maintenance: appending sets the member's owner; setting the owner appends; moving to another owner, removing and deleting take it out", arguments: StoreFlavor.allCases)
    func inverseMaintenance(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: OrderedModel.model)
        let view = container.viewContext
        let (firstID, secondID) = try view.performAndWait {
            let first = try Self.savedPlaylist(["a", "b"], in: view)
            let second = try Self.savedPlaylist(["x"], in: view)
            let (a, b) = (first.tracks[0], first.tracks[1])
            let c = Track(context: view)
            c.title = "c"
            c.playlist = first
            #expect(first.tracks.map(\.title) == ["a", "b", "c"], "setting the owner appends at the end")
            second.tracks.insert(a, at: 0)
            #expect(a.playlist === second && first.tracks.map(\.title) == ["b", "c"] && second.tracks.map(\.title) == ["a", "x"])
            first.tracks.removeAll { $0 === c }
            #expect(c.playlist == nil)
            view.delete(b)
            #expect(first.tracks.isEmpty)
            c.playlist = second
            try view.save()
            return (first.objectID!, second.objectID!)
        }
        #expect(Self.storedTitles(firstID, in: container) == [])
        #expect(Self.storedTitles(secondID, in: container) == ["a", "x", "c"])
    }

    @Test("delete rules work through arrays: cascade deletes the members, nullify clears their owner", arguments: StoreFlavor.allCases)
    func deleteRules(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: OrderedModel.model)
        let view = container.viewContext
        try view.performAndWait {
            let station = Station(context: view)
            let kept = try Self.savedPlaylist(["a"], in: view)
            let gone = try Self.savedPlaylist(["b", "c"], in: view)
            station.playlists = [gone]
            try view.save()
            let tracks = gone.tracks
            view.delete(station)
            #expect(gone.isDeleted && !kept.isDeleted)
            #expect(tracks.allSatisfy { $0.playlist == nil && !$0.isDeleted })
            try view.save()
            #expect(try view.fetch(FetchRequest<Playlist>()).map(\.objectID) == [kept.objectID])
            #expect(try view.count(for: FetchRequest<Track>()) == 3)
        }
    }

    @Test("an object given twice keeps its first place, and the next save throws naming the relationship and the object, writing nothing", arguments: StoreFlavor.allCases)
    func duplicates(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: OrderedModel.model)
        let view = container.viewContext
        let id = try view.performAndWait { () throws -> ObjectID in
            let playlist = try Self.savedPlaylist(["a", "b"], in: view)
            let (a, b) = (playlist.tracks[0], playlist.tracks[1])
            playlist.tracks = [b, a, b]
            #expect(playlist.tracks.map(\.title) == ["b", "a"])
            #expect(throws: ObjectGraphError.self) { try view.save() }
            do {
                playlist.tracks.append(a)
                try view.save()
                Issue.record("a duplicate must make the save throw")
            } catch ObjectGraphError.duplicateRelationshipMember(let entity, let property, let member) {
                #expect(entity == "Playlist" && property == "tracks" && member == a.description)
            }
            return playlist.objectID!
        }
        #expect(Self.storedTitles(id, in: container) == ["a", "b"], "nothing written")
        try view.performAndWait { try view.save() }
        #expect(Self.storedTitles(id, in: container) == ["b", "a"], "the kept order, once seen, saves")
    }

    @Test("an ordered to-many without inverse keeps its order and loses deleted members", arguments: StoreFlavor.allCases)
    func withoutInverse(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: OrderedModel.model)
        let view = container.viewContext
        let id = try view.performAndWait { () throws -> ObjectID in
            let playlist = Playlist(context: view)
            let genres = (0..<4).map { index in
                let genre = Genre(context: view)
                genre.label = "g\(index)"
                return genre
            }
            playlist.pinned = [genres[3], genres[1], genres[0], genres[2]]
            try view.save()
            view.delete(genres[1])
            try view.save()
            return playlist.objectID!
        }
        let fresh = container.newBackgroundContext()
        fresh.performAndWait {
            #expect(fresh.required(id, as: Playlist.self).pinned.map(\.label) == ["g3", "g0", "g2"])
        }
    }
}
