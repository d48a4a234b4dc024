import Dispatch
import Foundation
import ObjectGraph
import Testing

/// A profile as an app would model it: a unique username, an optional unique email, an indexed
/// rank, a compound index for "city then rank" and one rank per club.
final class Profile: ManagedObject, IndexedEntity {
    @Attribute(.unique) var username: String = ""
    @Attribute(.unique) var email: String? = nil
    @Attribute(.indexed) var rank: Int = 0
    @Attribute var city: String = ""
    @Relationship(inverse: "members") var club: Club?
    @Relationship(inverse: "followers") var following: Set<Club>

    static let indexes: [EntityIndex] = [
        .index(\Profile.city, \Profile.rank),
        .unique(\Profile.club, \Profile.rank),
    ]
}

final class Club: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Attribute var motto: String = ""
    @Relationship var members: Set<Profile>
    @Relationship var followers: Set<Profile>
}

/// A hierarchy sharing one table: codes are unique among all items, labels only among gadgets.
class Item: ManagedObject {
    @Attribute(.unique) var code: String = ""
    @Attribute var label: String = ""
}

final class Gadget: Item, IndexedEntity {
    @Attribute var serial: Int = 0

    static var indexes: [EntityIndex] { [.unique(\Gadget.label), .index(\Gadget.serial)] }
}

final class Widget: Item {
    @Attribute var size: Double = 0
}

/// Doubles and dates under a uniqueness constraint.
final class Reading: ManagedObject, IndexedEntity {
    @Attribute(.unique) var value: Double = 0
    @Attribute var takenAt: Date = Date(timeIntervalSinceReferenceDate: 0)

    static let indexes: [EntityIndex] = [.unique(\Reading.takenAt)]
}

enum UniquenessModel {
    static let model: ObjectModel = try! ObjectModel(entities: [Profile.self, Club.self, Item.self, Gadget.self, Widget.self, Reading.self])

    static func container(_ flavor: StoreFlavor) throws -> PersistentContainer {
        try flavor.makeContainer(model: model)
    }
}

extension Profile {
    /// A profile inserted into `context` with the given values.
    @discardableResult
    static func make(_ username: String, rank: Int = 0, club: Club? = nil, in context: ManagedObjectContext) -> Profile {
        let profile = Profile(context: context)
        profile.username = username
        profile.rank = rank
        profile.club = club
        return profile
    }
}

extension Club {
    /// A club inserted into `context`.
    static func make(_ name: String, in context: ManagedObjectContext) -> Club {
        let club = Club(context: context)
        club.name = name
        return club
    }
}

/// The collisions a save throws; `nil`, with an issue recorded for anything else it throws.
func violation(_ save: () throws -> Void) -> [UniquenessConflict]? {
    do {
        try save()
        return nil
    } catch ObjectGraphError.uniquenessViolation(let conflicts) {
        return conflicts
    } catch {
        Issue.record("expected a uniqueness violation, got \(error)")
        return nil
    }
}
