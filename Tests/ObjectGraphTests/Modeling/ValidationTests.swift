import Foundation
import ObjectGraph
import Testing

final class Critique: ManagedObject {
    @Attribute(validation: .range(1...5)) var stars: Int = 3
    @Attribute(.indexed, validation: .notEmpty) var title: String = "untitled"
    @Attribute(validation: .rule("must be lowercase") { $0 == $0.lowercased() }) var slug: String = "slug"
    @Attribute var note: String = ""

    override func validate() throws {
        if title == "spam", stars == 5 { throw ValidationError("five stars for spam", property: "stars") }
    }
}

final class Journey: ManagedObject {
    struct Backwards: Error, CustomStringConvertible {
        var description: String { "ends before it starts" }
    }

    @Attribute var start: Int = 0
    @Attribute var end: Int = 0

    override func validate() throws {
        if end < start { throw Backwards() }
    }
}

@Suite("validation before a save")
struct ValidationTests {
    static let model = try! ObjectModel(entities: [Critique.self, Journey.self])

    private func failures(_ body: () throws -> Void) -> [ValidationFailure]? {
        do {
            try body()
            return nil
        } catch ObjectGraphError.validationFailed(let failures) {
            return failures
        } catch {
            return nil
        }
    }

    @Test("a value that breaks its attribute's rule stops the save, naming the object, the property and the reason; nothing is written and the context keeps its changes", arguments: StoreFlavor.allCases)
    func propertyRule(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: Self.model)
        let view = container.viewContext
        let id = try view.performAndWait {
            let critique = Critique(context: view)
            try view.save()
            critique.stars = 9
            critique.note = "changed too"
            let found = failures { try view.save() }
            #expect(found == [ValidationFailure(objectID: critique.objectID!, property: "stars", reason: "must be between 1 and 5, not 9")])
            #expect(critique.stars == 9 && critique.hasChanges && view.hasChanges)
            return critique.objectID!
        }
        let reader = container.newBackgroundContext()
        reader.performAndWait {
            let stored = reader.required(id, as: Critique.self)
            #expect(stored.stars == 3 && stored.note == "")
        }
        try view.performAndWait {
            view.required(id, as: Critique.self).stars = 4
            try view.save()
        }
        let fresh = container.newBackgroundContext()
        fresh.performAndWait { #expect(fresh.required(id, as: Critique.self).stars == 4) }
    }

    @Test("every failure of every object is listed at once, in object order; inserted objects are checked too", arguments: StoreFlavor.allCases)
    func everyFailure(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: Self.model)
        let view = container.viewContext
        view.performAndWait {
            let first = Critique(context: view)
            first.title = ""
            first.slug = "Loud"
            let second = Critique(context: view)
            second.stars = 0
            let fine = Critique(context: view)
            fine.note = "valid"
            let found = failures { try view.save() }
            #expect(found == [
                ValidationFailure(objectID: first.objectID!, property: "slug", reason: "must be lowercase"),
                ValidationFailure(objectID: first.objectID!, property: "title", reason: "must not be empty"),
                ValidationFailure(objectID: second.objectID!, property: "stars", reason: "must be between 1 and 5, not 0"),
            ])
            #expect(view.insertedObjects.count == 3)
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait { () throws in #expect(try reader.fetch(FetchRequest<Critique>()).isEmpty) }
    }

    @Test("an object's validate() stops the save with its reason, naming the property a ValidationError names", arguments: StoreFlavor.allCases)
    func objectRule(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: Self.model)
        let view = container.viewContext
        try view.performAndWait {
            let critique = Critique(context: view)
            critique.title = "spam"
            critique.stars = 5
            let journey = Journey(context: view)
            journey.start = 10
            journey.end = 2
            let found = failures { try view.save() }
            #expect(found == [
                ValidationFailure(objectID: critique.objectID!, property: "stars", reason: "five stars for spam"),
                ValidationFailure(objectID: journey.objectID!, property: nil, reason: "ends before it starts"),
            ])
            journey.end = 12
            critique.stars = 1
            try view.save()
            #expect(!view.hasChanges)
        }
    }

    @Test("a deleted object is not checked: an invalid object can go", arguments: StoreFlavor.allCases)
    func deletedNotChecked(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: Self.model)
        let view = container.viewContext
        try view.performAndWait {
            let critique = Critique(context: view)
            try view.save()
            critique.stars = 42
            view.delete(critique)
            try view.save()
            #expect(try view.fetch(FetchRequest<Critique>()).isEmpty)
        }
    }

    @Test("a batch update checks the values it sets against the attributes' rules", arguments: StoreFlavor.allCases)
    func batchUpdateChecked(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: Self.model)
        let view = container.viewContext
        try view.performAndWait {
            Critique(context: view).note = "a"
            try view.save()
            #expect(throws: ObjectGraphError.invalidBatchUpdate(entity: "Critique", keyPath: "stars", reason: "the value breaks its validation: it must be between 1 and 5, not 7")) {
                try view.execute(BatchUpdate<Critique>(set: \.stars, to: 7))
            }
            try view.execute(BatchUpdate<Critique>(set: \.stars, to: 5).set(\.note, to: "b"))
            #expect(try view.fetch(FetchRequest<Critique>()).map(\.stars) == [5])
        }
    }
}
