@testable import ObjectGraph
import Testing

@Suite("SQL quoting of names and text")
struct SQLQuotingTests {
    @Test("a name is enclosed in double quotes, each double quote inside doubled")
    func quotedNames() {
        #expect(SQLSchema.quoted("Item") == "\"Item\"")
        #expect(SQLSchema.quoted("Item.tags[order]") == "\"Item.tags[order]\"")
        #expect(SQLSchema.quoted("a\"b\"") == "\"a\"\"b\"\"\"")
        #expect(SQLSchema.quoted("") == "\"\"")
    }

    @Test("text is enclosed in single quotes, each single quote inside doubled")
    func literalText() {
        #expect(SQLSchema.literal("it's") == "'it''s'")
        #expect(SQLSchema.literal("''") == "''''''")
        #expect(SQLSchema.literal("Zoë") == "'Zoë'")
    }

    @Test("a quote followed by a combining mark is doubled too: quoting compares bytes, not characters")
    func quoteBeforeCombiningMark() {
        #expect(Array(SQLSchema.quoted("a\"\u{301}").utf8) == Array("\"a\"\"\u{301}\"".utf8))
        #expect(Array(SQLSchema.literal("it'\u{301}s").utf8) == Array("'it''\u{301}s'".utf8))
        #expect(Array(SQLQueryRenderer.name("x\"\u{301}").utf8) == Array("\"x\"\"\u{301}\"".utf8))
    }
}
