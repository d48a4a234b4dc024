import Foundation
@testable import ObjectGraph
import Testing

/// One model with set relationships, one with the same relationships as arrays.
enum OrderedSets {
    final class Album: ManagedObject {
        @Attribute var title: String = ""
        @Relationship(inverse: "album") var songs: Set<Song>
        @Relationship(inverse: "albums") var labels: Set<Label>
    }
    final class Song: ManagedObject {
        @Attribute var title: String = ""
        @Relationship(inverse: "songs") var album: Album?
    }
    final class Label: ManagedObject {
        @Attribute var name: String = ""
        @Relationship(inverse: "labels") var albums: Set<Album>
    }
    static let model = try! ObjectModel(entities: [Album.self, Song.self, Label.self])
}

enum OrderedArrays {
    final class Album: ManagedObject {
        @Attribute var title: String = ""
        @Relationship(inverse: "album") var songs: [Song]
        @Relationship(inverse: "albums") var labels: [Label]
    }
    final class Song: ManagedObject {
        @Attribute var title: String = ""
        @Relationship(inverse: "songs") var album: Album?
    }
    final class Label: ManagedObject {
        @Attribute var name: String = ""
        @Relationship(inverse: "labels") var albums: Set<Album>
    }
    static let model = try! ObjectModel(entities: [Album.self, Song.self, Label.self])
}

@Suite("ordered to-many relationships: schema evolution")
struct OrderedMigrationTests {
    @Test("the stored schema records that a relationship is ordered, and where its order lives")
    func storedSchema() {
        let schema = StoredSchema(model: OrderedArrays.model)
        let songs = schema.entities.first { $0.name == "Album" }?.property(named: "songs")
        #expect(songs?.isOrdered == true && songs?.orderTable == "Album.songs[order]")
        let albums = schema.entities.first { $0.name == "Label" }?.property(named: "albums")
        #expect(albums?.isOrdered == nil && albums?.orderTable == nil)
        #expect(StoredSchema(model: OrderedSets.model).encoded.contains("order") == false, "a set's description is as before")
    }

    @Test("a set that becomes an array migrates: members come in key order (the order they were inserted in), and the new order then saves; back to a set drops the order and keeps every member")
    func setToArrayAndBack() throws {
        let url = TemporaryFolder.make().appendingPathComponent("evolving.sqlite")
        do {
            let container = try PersistentContainer(model: OrderedSets.model, storeURL: url)
            defer { container.close() }
            let view = container.viewContext
            try view.performAndWait {
                let album = OrderedSets.Album(context: view)
                album.title = "album"
                album.songs = Set(["one", "two", "three"].map { title in
                    let song = OrderedSets.Song(context: view)
                    song.title = title
                    return song
                })
                album.labels = Set(["x", "y"].map { name in
                    let label = OrderedSets.Label(context: view)
                    label.name = name
                    return label
                })
                try view.save()
            }
        }
        do {
            let container = try PersistentContainer(model: OrderedArrays.model, storeURL: url)
            defer { container.close() }
            let view = container.viewContext
            try view.performAndWait {
                let album = try #require(try view.fetch(FetchRequest<OrderedArrays.Album>()).first)
                let keyOrder = album.songs.map(\.objectID!).sorted()
                #expect(album.songs.map(\.objectID!) == keyOrder)
                #expect(Set(album.songs.map(\.title)) == ["one", "two", "three"] && Set(album.labels.map(\.name)) == ["x", "y"])
                album.songs.reverse()
                album.labels.reverse()
                try view.save()
            }
        }
        do {
            let container = try PersistentContainer(model: OrderedArrays.model, storeURL: url)
            defer { container.close() }
            let view = container.viewContext
            try view.performAndWait {
                let album = try #require(try view.fetch(FetchRequest<OrderedArrays.Album>()).first)
                #expect(album.songs.map(\.objectID!) == album.songs.map(\.objectID!).sorted().reversed())
                #expect(album.labels.map(\.objectID!) == album.labels.map(\.objectID!).sorted().reversed())
            }
        }
        do {
            let container = try PersistentContainer(model: OrderedSets.model, storeURL: url)
            defer { container.close() }
            let view = container.viewContext
            try view.performAndWait {
                let album = try #require(try view.fetch(FetchRequest<OrderedSets.Album>()).first)
                #expect(Set(album.songs.map(\.title)) == ["one", "two", "three"] && Set(album.labels.map(\.name)) == ["x", "y"])
            }
        }
        // The order was dropped with the set: an array again starts from key order.
        let container = try PersistentContainer(model: OrderedArrays.model, storeURL: url)
        defer { container.close() }
        let view = container.viewContext
        try view.performAndWait {
            let album = try #require(try view.fetch(FetchRequest<OrderedArrays.Album>()).first)
            #expect(album.songs.map(\.objectID!) == album.songs.map(\.objectID!).sorted())
        }
    }
}
