import Foundation
@testable import ObjectGraph
import Testing

// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("PostgreSQL store: attribute types in the server's own column types",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct PostgreSQLStoreColumnTests {
    @Test("Codable values are jsonb the server can query, Decimal is numeric with every digit, URL text, enums their raw values")
    func columnTypes() throws {
        let location = try StoreLocation(.postgreSQL)
        guard case let .schema(text, schema) = location.place else { return }
        let total = try #require(Decimal(string: "12345678901234567890.123456789012345678"))
        try location.withViewContext(model: AttributeTypesModel.model) { context in
            let order = Order(context: context)
            order.number = 1
            order.status = .shipped
            order.priority = .urgent
            order.total = total
            order.homepage = URL(string: "https://example.com/a%20b?c=d#e")
            order.shipping = Address(street: "Main 1", city: "Basel", labels: ["x"], geo: Geo(latitude: 1.5, longitude: -2))
            order.flags = ["gift": true]
            try context.save()
        }
        let connection = try PostgreSQLConnection(PostgreSQLConnectionString(text))
        defer { connection.close() }
        let columns = try connection.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'Order'", [.text(schema)])
        var types: [String: String] = [:]
        for row in 0..<columns.rowCount { types[try columns.string(row: row, column: 0) ?? ""] = try columns.string(row: row, column: 1) }
        #expect(types["shipping"] == "jsonb" && types["billing"] == "jsonb" && types["lines"] == "jsonb" && types["flags"] == "jsonb")
        #expect(types["total"] == "numeric" && types["discount"] == "numeric")
        #expect(types["homepage"] == "text" && types["link"] == "text")
        #expect(types["status"] == "bigint" && types["priority"] == "text", "enums are stored as their raw values")
        let values = try connection.execute(
            "SELECT total::text, shipping->>'city', (shipping->'geo'->>'latitude')::float8, homepage, status::text, priority, flags->>'gift' FROM \"Order\"")
        #expect(try values.string(row: 0, column: 0) == total.description)
        #expect(try values.string(row: 0, column: 1) == "Basel")
        #expect(try values.value(row: 0, column: 2) == .double(1.5))
        #expect(try values.string(row: 0, column: 3) == "https://example.com/a%20b?c=d#e")
        #expect(try values.string(row: 0, column: 4) == "\(OrderStatus.shipped.rawValue)")
        #expect(try values.string(row: 0, column: 5) == Priority.urgent.rawValue)
        #expect(try values.string(row: 0, column: 6) == "true")

        // Read back through another container: every digit and every bit.
        let read = try location.withViewContext(model: AttributeTypesModel.model) { context in
            try context.fetch(FetchRequest<Order>()).first.map { ($0.total, $0.homepage, $0.shipping) }
        }
        #expect(read?.0 == total && read?.1 == URL(string: "https://example.com/a%20b?c=d#e") && read?.2.geo?.latitude == 1.5)
    }
}
