import Foundation
@testable import ObjectGraph
import Testing

@Suite("ordered to-many relationships: predicates and batch deletes")
struct OrderedQueryTests {
    /// Playlists p0…p3 with 0…3 tracks; track `i` of a playlist is `length` 10·i.
    static func seeded(_ flavor: StoreFlavor) throws -> PersistentContainer {
        let container = try flavor.makeContainer(model: OrderedModel.model)
        let view = container.viewContext
        try view.performAndWait {
            for index in 0..<4 {
                let playlist = Playlist(context: view)
                playlist.name = "p\(index)"
                playlist.tracks = (0..<index).reversed().map { position in
                    let track = Track(context: view)
                    track.title = "p\(index)t\(position)"
                    track.length = 10 * position
                    return track
                }
            }
            try view.save()
        }
        return container
    }

    static func names(_ predicate: Predicate<Playlist>, in container: PersistentContainer) throws -> [String] {
        let fresh = container.newBackgroundContext()
        return try fresh.performAndWait { try fresh.fetch(FetchRequest(predicate: predicate, sortBy: [SortDescriptor(\.name)])).map(\.name) }
    }

    @Test("contains(where:), isEmpty and count over an array relationship select the same objects on both stores", arguments: StoreFlavor.allCases)
    func predicates(flavor: StoreFlavor) throws {
        let container = try Self.seeded(flavor)
        #expect(try Self.names(#Predicate { $0.tracks.contains { $0.length >= 20 } }, in: container) == ["p3"])
        #expect(try Self.names(#Predicate { $0.tracks.isEmpty }, in: container) == ["p0"])
        #expect(try Self.names(#Predicate { !$0.tracks.isEmpty }, in: container) == ["p1", "p2", "p3"])
        #expect(try Self.names(#Predicate { $0.tracks.count >= 2 }, in: container) == ["p2", "p3"])
        #expect(try Self.names(#Predicate { $0.tracks.contains { $0.title == "p2t0" } }, in: container) == ["p2"])
    }

    @Test("the array predicates run in SQL, as the set ones do")
    func translated() throws {
        let container = try Self.seeded(.sqlite)
        let view = container.viewContext
        try view.performAndWait {
            for predicate in [#Predicate<Playlist> { $0.tracks.contains { $0.length >= 20 } }, #Predicate<Playlist> { $0.tracks.isEmpty }, #Predicate<Playlist> { $0.tracks.count >= 2 }] {
                let explanation = try view.explain(FetchRequest(predicate: predicate))
                #expect(explanation.predicateInSQL && explanation.predicateInMemory.isEmpty, "\(explanation)")
            }
        }
    }

    @Test("a batch delete removes its objects from the arrays that held them, order kept, in the store and in contexts", arguments: StoreFlavor.allCases)
    func batchDelete(flavor: StoreFlavor) throws {
        let container = try Self.seeded(flavor)
        let view = container.viewContext
        let held = try view.performAndWait {
            let playlist = try #require(try view.fetch(FetchRequest<Playlist>(predicate: #Predicate { $0.name == "p3" })).first)
            #expect(playlist.tracks.map(\.title) == ["p3t2", "p3t1", "p3t0"])
            try view.delete(Track.self, where: #Predicate { $0.length == 10 })
            #expect(playlist.tracks.map(\.title) == ["p3t2", "p3t0"])
            return playlist
        }
        let fresh = container.newBackgroundContext()
        try fresh.performAndWait {
            let playlist = try #require(try fresh.fetch(FetchRequest<Playlist>(predicate: #Predicate { $0.name == "p3" })).first)
            #expect(playlist.tracks.map(\.title) == ["p3t2", "p3t0"])
            playlist.tracks.reverse()
            try fresh.save()
        }
        #expect(OrderedRelationshipTests.storedTitles(view.performAndWait { held.objectID! }, in: container) == ["p3t0", "p3t2"])
    }
}
