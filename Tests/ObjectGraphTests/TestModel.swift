import Dispatch
import Foundation
import ObjectGraph

final class Owner: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "owner") var buckets: Set<Bucket>
}

final class Bucket: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "bucket", deleteRule: .cascade) var contents: Set<Content>
    @Relationship(inverse: "buckets") var owner: Owner?
}

class Content: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var creationDate: Date = .now
    @Attribute var isEven: Bool = false
    @Attribute var rank: Int = 0
    @Relationship(inverse: "contents") var bucket: Bucket?
    @Relationship(inverse: "contents") var tags: Set<Tag>
}

final class ImageContent: Content {
    @Attribute var pixelWidth: Int = 0
}

final class Tag: ManagedObject {
    @Attribute var title: String = ""
    @Relationship var contents: Set<Content>
}

/// One attribute of every supported type.
final class AllTypes: ManagedObject {
    @Attribute var bool: Bool = false
    @Attribute var int: Int = 0
    @Attribute var int8: Int8 = 0
    @Attribute var int16: Int16 = 0
    @Attribute var int32: Int32 = 0
    @Attribute var int64: Int64 = 0
    @Attribute var uint8: UInt8 = 0
    @Attribute var uint16: UInt16 = 0
    @Attribute var uint32: UInt32 = 0
    @Attribute var double: Double = 0
    @Attribute var float: Float = 0
    @Attribute var string: String = ""
    @Attribute var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var data: Data = Data()
    @Attribute var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Attribute var optionalString: String? = nil
    @Attribute var optionalInt: Int? = nil
    @Attribute var optionalDate: Date? = nil
    @Attribute var optionalData: Data? = nil
    @Attribute var optionalUUID: UUID? = nil
    @Attribute var optionalBool: Bool? = nil
    @Attribute var optionalDouble: Double? = nil
}

enum TestModel {
    static let classes: [ManagedObject.Type] = [Owner.self, Bucket.self, Content.self, ImageContent.self, Tag.self, AllTypes.self]
    static let model: ObjectModel = try! ObjectModel(entities: classes)

    /// A container whose view context runs on a serial queue of the test's own.
    static func container(_ kind: StoreKind = .inMemory) throws -> PersistentContainer {
        try PersistentContainer(model: model, store: kind, viewContextQueue: DispatchQueue(label: "test.view"))
    }
}
