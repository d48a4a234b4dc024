import ObjectGraph

// Every shape an ordered to-many can take: one-to-many (`Playlist.tracks`, inverse to-one), an
// ordered side facing a set (`Track.genres` / `Genre.tracks`), two ordered sides (`Track.credits` /
// `Artist.works`), an ordered to-many without inverse (`Playlist.pinned`), and a cascade
// through an array (`Station.playlists`).

final class Station: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "station", deleteRule: .cascade) var playlists: [Playlist]
}

final class Playlist: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "playlists") var station: Station?
    @Relationship(inverse: "playlist") var tracks: [Track]
    @Relationship var pinned: [Genre]
}

final class Track: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var length: Int = 0
    @Relationship(inverse: "tracks") var playlist: Playlist?
    @Relationship(inverse: "tracks") var genres: [Genre]
    @Relationship(inverse: "works") var credits: [Artist]
}

final class Genre: ManagedObject {
    @Attribute var label: String = ""
    @Relationship(inverse: "genres") var tracks: Set<Track>
}

final class Artist: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "credits") var works: [Track]
}

enum OrderedModel {
    static let model: ObjectModel = try! ObjectModel(entities: [Station.self, Playlist.self, Track.self, Genre.self, Artist.self])
}
