import Foundation
import ObjectGraph
import Testing

@Suite("attribute types: enums, Codable values, URL, Decimal, arrays and sets")
struct AttributeRoundTripTypesTests {
    /// Values that exercise the edges of each type.
    struct Sample {
        var status: OrderStatus
        var priority: Priority?
        var mood: Mood
        var shipping: Address
        var billing: Address?
        var homepage: URL?
        var link: URL
        var total: Decimal
        var discount: Decimal?
        var tags: [String]
        var codes: Set<Int>
        var history: [OrderStatus]
        var moods: Set<Mood>
        var lines: [Line]
        var flags: [String: Bool]

        func write(to order: Order) {
            order.status = status
            order.priority = priority
            order.mood = mood
            order.shipping = shipping
            order.billing = billing
            order.homepage = homepage
            order.link = link
            order.total = total
            order.discount = discount
            order.tags = tags
            order.codes = codes
            order.history = history
            order.moods = moods
            order.lines = lines
            order.flags = flags
        }

        func check(_ order: Order, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(order.status == status, sourceLocation: sourceLocation)
            #expect(order.priority == priority, sourceLocation: sourceLocation)
            #expect(order.mood == mood, sourceLocation: sourceLocation)
            #expect(order.shipping == shipping, sourceLocation: sourceLocation)
            #expect(order.billing == billing, sourceLocation: sourceLocation)
            #expect(order.homepage == homepage, sourceLocation: sourceLocation)
            #expect(order.link == link, sourceLocation: sourceLocation)
            #expect(order.total == total || order.total.isNaN && total.isNaN, sourceLocation: sourceLocation)
            #expect(order.discount == discount, sourceLocation: sourceLocation)
            #expect(order.tags == tags, sourceLocation: sourceLocation)
            #expect(order.codes == codes, sourceLocation: sourceLocation)
            #expect(order.history == history, sourceLocation: sourceLocation)
            #expect(order.moods == moods, sourceLocation: sourceLocation)
            #expect(order.lines == lines, sourceLocation: sourceLocation)
            #expect(order.flags == flags, sourceLocation: sourceLocation)
        }
    }

    static let samples: [Sample] = [
        Sample(status: .draft, priority: nil, mood: .calm, shipping: Address(street: "", city: ""), billing: nil, homepage: nil,
               link: URL(string: "https://example.com")!, total: 0, discount: nil, tags: [], codes: [], history: [], moods: [],
               lines: [], flags: [:]),
        Sample(status: .delivered, priority: .urgent, mood: .grumpy,
               shipping: Address(street: "Rue de l'Église 1", city: "Zürich", labels: ["home", "front door", "ü"], geo: Geo(latitude: -0.5, longitude: 179.999_999)),
               billing: Address(street: "\"quoted\" \\ back", city: "東京", labels: []),
               homepage: URL(string: "https://例え.jp/ü?q=a b&x=%2F")!, link: URL(fileURLWithPath: "/tmp/a b/ü.txt"),
               total: Decimal(string: "12345678901234567890123456789012345678")!, discount: Decimal(string: "-0.000000000000000000000000000000000001")!,
               tags: ["b", "a", "b", ""], codes: [3, 1, Int.max, Int.min], history: [.draft, .placed, .draft], moods: [.cheerful, .grumpy],
               lines: [Line(sku: "A-1", quantity: 2), Line(sku: "B", quantity: -1)], flags: ["gift": true, "fragile": false]),
        Sample(status: .placed, priority: .low, mood: .cheerful, shipping: Address(street: "x", city: "y", geo: Geo(latitude: .infinity, longitude: -0.0)),
               billing: nil, homepage: URL(string: "mailto:someone@example.com")!, link: URL(string: "https://example.com/%E2%9C%93?%3D=%26")!,
               total: .greatestFiniteMagnitude, discount: .leastFiniteMagnitude, tags: ["only"], codes: [0], history: [.shipped],
               moods: Set(Mood.allCases), lines: [], flags: [:]),
        Sample(status: .shipped, priority: .normal, mood: .calm, shipping: Address(street: "", city: ""), billing: nil, homepage: nil,
               link: URL(string: "https://example.com")!, total: .leastNonzeroMagnitude, discount: Decimal(string: "3.1415926535897932384626433832795028841")!,
               tags: [], codes: [], history: [], moods: [], lines: [], flags: [:]),
        Sample(status: .shipped, priority: nil, mood: .calm, shipping: Address(street: "", city: ""), billing: nil, homepage: nil,
               link: URL(string: "https://example.com")!, total: .nan, discount: 0, tags: [], codes: [], history: [], moods: [], lines: [], flags: [:]),
    ]

    @Test("every converted type keeps its value through a save and a fresh read, edge values included", arguments: StoreFlavor.allCases)
    func roundTrip(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: AttributeTypesModel.model)
        let view = container.viewContext
        let ids = try view.performAndWait {
            let ids = Self.samples.map { sample in
                let order = Order(context: view)
                sample.write(to: order)
                sample.check(order)
                return order.objectID!
            }
            try view.save()
            return ids
        }
        let reader = container.newBackgroundContext()
        reader.performAndWait {
            for (id, sample) in zip(ids, Self.samples) { sample.check(reader.required(id, as: Order.self)) }
        }
    }
}
