import Foundation
import ObjectGraph
import Testing

private final class Lonely: ManagedObject {
    @Relationship(inverse: "nothingHere") var friend: Friendly?
}
private final class Friendly: ManagedObject {
    @Attribute var name: String = ""
}

private final class Left: ManagedObject {
    @Relationship(inverse: "other") var right: Right?
}
private final class Right: ManagedObject {
    @Relationship var left: Left?
    @Relationship var other: Right?
}

private struct Point { var x = 0, y = 0 }
private final class Shape: ManagedObject {
    @Attribute var origin: Point = Point()
}

private final class Outsider: ManagedObject {
    @Attribute var name: String = ""
}
private final class PointsOutside: ManagedObject {
    @Relationship var outsider: Outsider?
}

@Suite("model validation")
struct ModelValidationTests {
    @Test("the model describes properties in slot order, inherited first")
    func describesProperties() throws {
        let model = TestModel.model
        let image = try #require(model.entity(named: "ImageContent"))
        #expect(image.properties.map(\.name) == ["name", "creationDate", "isEven", "rank", "bucket", "tags", "pixelWidth"])
        #expect(image.superentityName == "Content")
        #expect(image.rootName == "Content")
        let content = try #require(model.entity(named: "Content"))
        #expect(content.selfAndSubentityNames == ["Content", "ImageContent"])
        let bucket = try #require(content.property(named: "bucket")?.relationship)
        #expect(bucket.destinationName == "Bucket")
        #expect(bucket.inverseName == "contents")
        #expect(!bucket.isToMany)
        let tags = try #require(content.property(named: "tags")?.relationship)
        #expect(tags.isToMany && tags.inverseIsToMany)
        #expect(try #require(model.entity(named: "Tag")).property(named: "contents")?.relationship?.inverseName == "tags")
    }

    @Test("an inverse that does not exist is an error naming the entity and property")
    func missingInverse() {
        #expect(throws: ObjectGraphError.missingInverse(entity: "Lonely", property: "friend", inverse: "nothingHere", destination: "Friendly")) {
            try ObjectModel(entities: [Lonely.self, Friendly.self])
        }
    }

    @Test("an inverse that does not point back is an error")
    func mismatchedInverse() {
        #expect(throws: ObjectGraphError.mismatchedInverse(entity: "Left", property: "right", inverse: "other", destination: "Right")) {
            try ObjectModel(entities: [Left.self, Right.self])
        }
    }

    @Test("an unsupported attribute type is an error naming it")
    func unsupportedType() {
        #expect(throws: ObjectGraphError.unsupportedAttributeType(entity: "Shape", property: "origin", type: "Point")) {
            try ObjectModel(entities: [Shape.self])
        }
    }

    @Test("a class listed twice is an error")
    func duplicateEntity() {
        #expect(throws: ObjectGraphError.duplicateEntity("Friendly")) {
            try ObjectModel(entities: [Friendly.self, Friendly.self])
        }
    }

    @Test("a relationship to a class outside the model is an error")
    func unknownDestination() {
        #expect(throws: ObjectGraphError.unknownDestination(entity: "PointsOutside", property: "outsider", destination: "Outsider")) {
            try ObjectModel(entities: [PointsOutside.self])
        }
    }

    @Test("errors explain themselves")
    func errorMessages() {
        let message = ObjectGraphError.missingInverse(entity: "A", property: "b", inverse: "c", destination: "D").description
        #expect(message.contains("A.b") && message.contains("'c'") && message.contains("D"))
    }
}
