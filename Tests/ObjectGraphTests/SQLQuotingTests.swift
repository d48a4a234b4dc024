@testable import ObjectGraph
import Testing

@Suite("SQL quoting of names and text")
struct SQLQuotingTests {
    @Test("a name is enclosed in double quotes, each double quote inside doubled")
    func quotedNames() {
        #expect(SQLiteSchema.quoted("Item") == "\"Item\"")
        #expect(SQLiteSchema.quoted("Item.tags[order]") == "\"Item.tags[order]\"")
        #expect(SQLiteSchema.quoted("a\"b\"") == "\"a\"\"b\"\"\"")
        #expect(SQLiteSchema.quoted("") == "\"\"")
    }

    @Test("text is enclosed in single quotes, each single quote inside doubled")
    func literalText() {
        #expect(SQLiteSchema.literal("it's") == "'it''s'")
        #expect(SQLiteSchema.literal("''") == "''''''")
        #expect(SQLiteSchema.literal("Zoë") == "'Zoë'")
    }
}
