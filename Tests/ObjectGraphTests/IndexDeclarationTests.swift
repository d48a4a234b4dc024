import Foundation
import ObjectGraph
import Testing

private final class Target: ManagedObject {
    @Attribute var name: String = ""
}

private final class IndexesToMany: ManagedObject, IndexedEntity {
    @Attribute var name: String = ""
    @Relationship var targets: Set<Target>
    static let indexes: [EntityIndex] = [.index(\IndexesToMany.name, \IndexesToMany.targets)]
}

private final class IndexesComputed: ManagedObject, IndexedEntity {
    @Attribute var name: String = ""
    var shouted: String { name.uppercased() }
    static let indexes: [EntityIndex] = [.unique(\IndexesComputed.shouted)]
}

private final class IndexesPlainProperty: ManagedObject, IndexedEntity {
    var counter = 0
    static let indexes: [EntityIndex] = [.index(\IndexesPlainProperty.counter)]
}

private final class IndexesThroughRelationship: ManagedObject, IndexedEntity {
    @Relationship var target: Target?
    static let indexes: [EntityIndex] = [.index(\IndexesThroughRelationship.target?.name)]
}

private final class IndexesTwice: ManagedObject, IndexedEntity {
    @Attribute var name: String = ""
    static let indexes: [EntityIndex] = [.unique(\IndexesTwice.name, \IndexesTwice.name)]
}

private class Vehicle: ManagedObject, IndexedEntity {
    @Attribute var plate: String = ""
    @Attribute(.indexed) var wheels: Int = 0
    class var indexes: [EntityIndex] { [.unique(\Vehicle.plate)] }
}

private final class Truck: Vehicle {
    @Attribute var load: Double = 0
    override class var indexes: [EntityIndex] { super.indexes + [.index(\Truck.plate, \Truck.load)] }
}

private final class Bike: Vehicle {}

@Suite("indexes and uniqueness are declared on the model and checked when it is made")
struct IndexDeclarationTests {
    @Test("attribute options and entity declarations become the entity's indexes, inherited ones first")
    func describesIndexes() throws {
        let model = UniquenessModel.model
        let profile = try #require(model.entity(named: "Profile"))
        #expect(profile.indexes.map(\.description) == [
            "unique Profile(username)", "unique Profile(email)", "index Profile(rank)",
            "index Profile(city, rank)", "unique Profile(club, rank)",
        ])
        let gadget = try #require(model.entity(named: "Gadget"))
        #expect(gadget.indexes.map(\.description) == ["unique Item(code)", "unique Gadget(label)", "index Gadget(serial)"])
        let widget = try #require(model.entity(named: "Widget"))
        #expect(widget.indexes.map(\.description) == ["unique Item(code)"])
    }

    @Test("a subclass inherits its superclass's declarations once and may add its own")
    func inheritance() throws {
        let model = try ObjectModel(entities: [Vehicle.self, Truck.self, Bike.self])
        #expect(model.entity(named: "Vehicle")?.indexes.map(\.description) == ["index Vehicle(wheels)", "unique Vehicle(plate)"])
        #expect(model.entity(named: "Bike")?.indexes.map(\.description) == ["index Vehicle(wheels)", "unique Vehicle(plate)"])
        #expect(model.entity(named: "Truck")?.indexes.map(\.description) == ["index Vehicle(wheels)", "unique Vehicle(plate)", "index Truck(plate, load)"])
    }

    @Test("a to-many relationship cannot be indexed: the error names it and says why")
    func toMany() {
        #expect {
            try ObjectModel(entities: [IndexesToMany.self, Target.self])
        } throws: { error in
            guard case let .invalidIndex(entity, property, reason) = error as? ObjectGraphError else { return false }
            return entity == "IndexesToMany" && property == "targets" && reason.contains("to-many")
        }
    }

    @Test("a key path that is not a stored property of the entity is an error that names it", arguments: [
        ("computed", [IndexesComputed.self] as [ManagedObject.Type]),
        ("plain stored", [IndexesPlainProperty.self]),
        ("through a relationship", [IndexesThroughRelationship.self, Target.self]),
    ])
    func notAProperty(kind: String, classes: [ManagedObject.Type]) {
        #expect {
            try ObjectModel(entities: classes)
        } throws: { error in
            guard case let .invalidIndex(entity, property, reason) = error as? ObjectGraphError else { return false }
            return entity == String(describing: classes[0]) && property.hasPrefix("\\\(entity).") && reason.contains("not an @Attribute or @Relationship")
        }
    }

    @Test("a property listed twice in one index is an error")
    func twice() {
        #expect(throws: ObjectGraphError.invalidIndex(entity: "IndexesTwice", property: "name", reason: "it is listed twice in one index")) {
            try ObjectModel(entities: [IndexesTwice.self])
        }
    }

    @Test("the fingerprint leaves indexes out, so declaring one needs no new file")
    func fingerprint() throws {
        let model = UniquenessModel.model
        #expect(!model.fingerprint.contains("unique") && !model.fingerprint.contains("index"))
    }
}
