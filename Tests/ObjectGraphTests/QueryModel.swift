import Dispatch
import Foundation
import ObjectGraph

// The model of the query tests: every stored type with and without optionality, a to-one, a
// to-many and an ordered to-many relationship, and a subentity, so that every translated expression has something to
// run on.

class QueryItem: ManagedObject {
    @Attribute var int: Int = 0
    @Attribute var optionalInt: Int? = nil
    @Attribute var double: Double = 0
    @Attribute var optionalDouble: Double? = nil
    @Attribute var string: String = ""
    @Attribute var optionalString: String? = nil
    @Attribute var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var flag: Bool = false
    @Attribute var optionalFlag: Bool? = nil
    @Attribute var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Relationship(inverse: "items") var group: QueryGroup?
    @Relationship(inverse: "items") var tags: Set<QueryTag>
    @Relationship(inverse: "item") var notes: [QueryNote]
}

final class SpecialQueryItem: QueryItem {
    @Attribute var extra: Int = 0
}

final class QueryGroup: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var size: Int = 0
    @Relationship(inverse: "group") var items: Set<QueryItem>
}

final class QueryTag: ManagedObject {
    @Attribute var label: String = ""
    @Relationship(inverse: "tags") var items: Set<QueryItem>
}

final class QueryNote: ManagedObject {
    @Attribute var text: String = ""
    @Attribute var weight: Int = 0
    @Relationship(inverse: "notes") var item: QueryItem?
}

enum QueryModel {
    static let model: ObjectModel = try! ObjectModel(entities: [QueryItem.self, SpecialQueryItem.self, QueryGroup.self, QueryTag.self, QueryNote.self])


    /// Edge values every generated store and predicate draw from.
    static let ints = [Int.min, -7, -1, 0, 1, 2, 3, 42, Int.max]
    static let doubles: [Double] = [-.infinity, -Double.greatestFiniteMagnitude, -1.5, -0.0, 0.0, Double.leastNonzeroMagnitude, 1.5, 2, .infinity, .nan, -.nan]
    static let strings = ["", "a", "A", "ab", "abc", "b", "B", "\u{E9}", "e\u{301}", "\u{E9}t\u{E9}", "e\u{301}te\u{301}", "Zoo", "z", "\u{1F600}", "a\u{0}b"]

    /// The strings a store of `flavor` can hold: PostgreSQL's `text` refuses NUL (a typed error,
    /// tested in the attribute tests), so there a control character below every letter stands in.
    static func strings(on flavor: StoreFlavor) -> [String] {
        flavor == .postgreSQL ? strings.map { $0.replacingOccurrences(of: "\u{0}", with: "\u{1}") } : strings
    }
    static let dates: [Date] = [.distantPast, .distantFuture, Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -0.0),
                                Date(timeIntervalSinceReferenceDate: 1e-3), Date(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSinceReferenceDate: -1e12)]
    static let uuids: [UUID] = [
        UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
        UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255)),
        UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
        UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
    ]
    static let groupNames = ["", "inbox", "Inbox", "\u{E9}t\u{E9}", "e\u{301}te\u{301}"]
    static let labels = ["red", "green", "Red"]
    static let noteTexts = ["", "todo", "Todo", "done"]
}
