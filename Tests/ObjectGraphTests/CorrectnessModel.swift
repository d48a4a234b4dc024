import Dispatch
import Foundation
import ObjectGraph

// A model with every relationship shape the correctness tests need: one-to-many (`Shelf.entries`
// and `Entry.shelf`) and many-to-many (`Entry.marks` and `Mark.entries`), with a `Double` that
// can be NaN or -0.0 and a priority that a predicate reads through a relationship.

final class Shelf: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var priority: Int = 0
    @Relationship(inverse: "shelf") var entries: Set<Entry>
}

final class Entry: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var score: Double = 0
    @Relationship(inverse: "entries") var shelf: Shelf?
    @Relationship(inverse: "entries") var marks: Set<Mark>
}

final class Mark: ManagedObject {
    @Attribute var title: String = ""
    @Relationship(inverse: "marks") var entries: Set<Entry>
}

/// An entity no live result follows: a background import of it must cost the view nothing.
final class Unobserved: ManagedObject {
    @Attribute var payload: Int = 0
}

enum CorrectnessModel {
    static let model: ObjectModel = try! ObjectModel(entities: [Shelf.self, Entry.self, Mark.self, Unobserved.self])

    /// A container of `flavor` on this model, its view context on a serial queue of its own.
    static func container(_ flavor: StoreFlavor) throws -> PersistentContainer {
        try flavor.makeContainer(model: model)
    }
}

extension ManagedObjectContext {
    /// The object with `id` as `T`; fails the test when missing. Call it on the context's queue.
    func required<T: ManagedObject>(_ id: ObjectID, as type: T.Type = T.self) -> T {
        guard let object = object(with: id, as: T.self) else { preconditionFailure("no \(T.self) \(id) in \(name)") }
        return object
    }
}
