import Foundation
import ObjectGraph

/// A board of items grouped in buckets: the demo's data.
final class Bucket: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "bucket", deleteRule: .cascade) var items: Set<Item>
}

final class Item: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var rank: Int = 0
    @Relationship(inverse: "items") var bucket: Bucket?
}

enum DemoModel {
    static func make() throws -> ObjectModel {
        try ObjectModel(entities: [Bucket.self, Item.self])
    }
}
