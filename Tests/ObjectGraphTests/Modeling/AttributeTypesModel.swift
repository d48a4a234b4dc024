import Foundation
import ObjectGraph

// A model class with every attribute type that is converted to be stored: enums (ordered by
// raw value, ordered otherwise, `Codable` or not), URL, Decimal, Codable structs (nested, with a
// set inside), arrays, sets and a dictionary.

enum OrderStatus: Int, Codable, CaseIterable, Comparable, Sendable {
    case draft = 1, placed = 2, shipped = 3, delivered = 4
    static func < (lhs: OrderStatus, rhs: OrderStatus) -> Bool { lhs.rawValue < rhs.rawValue }
}

enum Priority: String, Codable, CaseIterable, Comparable, Sendable {
    case low, normal, urgent
    static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Ordered against its raw values: SQL cannot sort or compare it, memory must.
enum Mood: Int, Codable, CaseIterable, Comparable, Sendable {
    case cheerful = 3, calm = 1, grumpy = 2
    static func < (lhs: Mood, rhs: Mood) -> Bool { order(lhs) < order(rhs) }
    private static func order(_ mood: Mood) -> Int { [.cheerful, .calm, .grumpy].firstIndex(of: mood)! }
}

struct Geo: Codable, Hashable, Sendable {
    var latitude: Double
    var longitude: Double
}

struct Address: Codable, Hashable, Sendable {
    var street: String
    var city: String
    var labels: Set<String> = []
    var geo: Geo? = nil
}

struct Line: Codable, Hashable, Sendable {
    var sku: String
    var quantity: Int
}

final class Order: ManagedObject {
    @Attribute var number: Int = 0
    @Attribute(.indexed) var status: OrderStatus = .draft
    @Attribute var priority: Priority? = nil
    @Attribute var mood: Mood = .calm
    @Attribute var shipping = Address(street: "", city: "")
    @Attribute var billing: Address? = nil
    @Attribute var homepage: URL? = nil
    @Attribute var link = URL(string: "https://example.com")!
    @Attribute(.indexed) var total: Decimal = 0
    @Attribute var discount: Decimal? = nil
    @Attribute var tags: [String] = []
    @Attribute var codes: Set<Int> = []
    @Attribute var history: [OrderStatus] = []
    @Attribute var moods: Set<Mood> = []
    @Attribute var lines: [Line] = []
    @Attribute var flags: [String: Bool] = [:]
}

enum AttributeTypesModel {
    static let model: ObjectModel = try! ObjectModel(entities: [Order.self])
}
