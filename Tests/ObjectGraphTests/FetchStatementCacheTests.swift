import Foundation
@testable import ObjectGraph
import Testing

@Suite("the fetch statement cache: confirmed by a second translation, bounded")
struct FetchStatementCacheTests {
    private static let entity = QueryModel.model.entity(named: "QueryItem")!

    private static func key(_ value: Int) -> FetchShapeKey {
        FetchShape(FetchRequest<QueryItem>(predicate: #Predicate { $0.int == value }))!.key
    }

    private static func statement(_ sql: String, _ bindings: [PropertyValue], values: [PropertyValue]) -> PreparedFetch? {
        PreparedFetch(SQLStatementText(sql: sql, bindings: bindings), values: values, entity: entity, sortsByIDInMemory: false)
    }

    @Test("a statement is used only after a translation with other values agrees with it")
    func confirmation() throws {
        let cache = FetchStatementCache()
        let key = Self.key(5)
        let first = try #require(Self.statement("SELECT ?1", [.integer(5)], values: [.integer(5)]))
        cache.record(key, values: [.integer(5)], text: SQLStatementText(sql: "SELECT ?1", bindings: [.integer(5)]), statement: first)
        #expect(cache.statement(for: key, values: [.integer(6)]) == nil)
        // The candidate serves the values it was translated with.
        #expect(cache.statement(for: key, values: [.integer(5)]) != nil)
        // The same values again prove nothing.
        cache.record(key, values: [.integer(5)], text: SQLStatementText(sql: "SELECT ?1", bindings: [.integer(5)]), statement: first)
        #expect(cache.statement(for: key, values: [.integer(6)]) == nil)
        cache.record(key, values: [.integer(6)], text: SQLStatementText(sql: "SELECT ?1", bindings: [.integer(6)]), statement: nil)
        let confirmed = try #require(cache.statement(for: key, values: [.integer(9)]))
        #expect(confirmed.text(binding: [.integer(9)]) == SQLStatementText(sql: "SELECT ?1", bindings: [.integer(9)]))
    }

    @Test("a shape whose translations disagree is never cached")
    func disagreement() throws {
        let cache = FetchStatementCache()
        let key = Self.key(5)
        let first = try #require(Self.statement("SELECT ?1", [.integer(5)], values: [.integer(5)]))
        cache.record(key, values: [.integer(5)], text: SQLStatementText(sql: "SELECT ?1", bindings: [.integer(5)]), statement: first)
        cache.record(key, values: [.integer(6)], text: SQLStatementText(sql: "SELECT ?1 + 1", bindings: [.integer(6)]), statement: nil)
        #expect(cache.statement(for: key, values: [.integer(7)]) == nil)
        #expect(cache.isUncacheable(key))
        cache.record(key, values: [.integer(7)], text: SQLStatementText(sql: "SELECT ?1", bindings: [.integer(7)]), statement: first)
        #expect(cache.statement(for: key, values: [.integer(7)]) == nil)
    }

    @Test("past its capacity the cache drops the shape used longest ago")
    func bounded() throws {
        let cache = FetchStatementCache(capacity: 2)
        func record(_ key: FetchShapeKey, _ value: Int64) {
            let text = SQLStatementText(sql: "SELECT ?1", bindings: [.integer(value)])
            cache.record(key, values: [.integer(value)], text: text, statement: Self.statement(text.sql, text.bindings, values: [.integer(value)]))
        }
        // Three shapes: the same predicate on three properties.
        let keys = [
            FetchShape(FetchRequest<QueryItem>(predicate: #Predicate { $0.int == 1 }))!.key,
            FetchShape(FetchRequest<QueryItem>(predicate: #Predicate { $0.int > 1 }))!.key,
            FetchShape(FetchRequest<QueryItem>(predicate: #Predicate { $0.int < 1 }))!.key,
        ]
        #expect(Set(keys).count == 3)
        record(keys[0], 1)
        record(keys[0], 2)
        record(keys[1], 1)
        record(keys[1], 2)
        #expect(cache.statement(for: keys[0], values: [.integer(3)]) != nil)  // used after keys[1]
        record(keys[2], 1)
        #expect(cache.count == 2)
        #expect(cache.state(of: keys[1]) == nil)
        #expect(cache.statement(for: keys[0], values: [.integer(3)]) != nil)
    }

    @Test("a statement is not separated from its values when a value is bound twice, not at all, or beside an equal fixed parameter")
    func separation() {
        #expect(Self.statement("SELECT ?1, ?2", [.integer(5), .integer(5)], values: [.integer(5)]) == nil)
        #expect(Self.statement("SELECT ?1", [.integer(50)], values: [.integer(5)]) == nil)
        #expect(Self.statement("SELECT ?1 LIMIT ?2", [.integer(20), .integer(20)], values: [.integer(20)]) == nil)
        #expect(Self.statement("SELECT ?1, ?2", [.string("a"), .string("a")], values: [.string("a"), .string("a")]) == nil)
        let statement = Self.statement("SELECT ?1 LIMIT ?2", [.string("a"), .integer(20)], values: [.string("a")])
        #expect(statement?.text(binding: [.string("b")]).bindings == [.string("b"), .integer(20)])
    }

    @Test("predicates whose parts are worked out before the query, or that capture objects or ranges, have no shape")
    func noShape() {
        let limit = 40
        #expect(FetchShape(FetchRequest<QueryItem>(predicate: #Predicate { $0.int < limit / 10 })) == nil)
        #expect(FetchShape(FetchRequest<QueryItem>(predicate: #Predicate { (0..<limit).contains($0.int) })) == nil)
        #expect(FetchShape(FetchRequest<QueryItem>(predicate: #Predicate { $0.int == limit })) != nil)
        // Two variables in other roles are other shapes.
        let first = FetchShape(FetchRequest<QueryItem>(predicate: #Predicate { item in item.tags.contains { tag in tag.label == item.string } }))
        #expect(first != nil)
    }
}
