import Foundation
@testable import ObjectGraph
import Testing

@Suite("ordered to-many relationships")
struct OrderedRelationshipTests {
    @Test("an array relationship keeps its order through a save and a fetch in another context", arguments: StoreFlavor.allCases)
    func roundTrip(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: OrderedModel.model)
        let view = container.viewContext
        let titles = ["c", "a", "e", "b", "d"]
        let playlistID = try view.performAndWait {
            let playlist = Playlist(context: view)
            playlist.tracks = titles.map { title in
                let track = Track(context: view)
                track.title = title
                return track
            }
            try view.save()
            return playlist.objectID!
        }
        let reader = container.newBackgroundContext()
        reader.performAndWait {
            #expect(reader.required(playlistID, as: Playlist.self).tracks.map(\.title) == titles)
        }
    }
}
