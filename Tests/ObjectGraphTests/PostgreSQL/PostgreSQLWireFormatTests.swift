import Foundation
@testable import ObjectGraph
import Testing

/// What the PostgreSQL layer decides without a server: numeric decoding, the SQL log's
/// expansion, long names.
@Suite("PostgreSQL wire format and names, without a server")
struct PostgreSQLWireFormatTests {
    /// `value`'s binary numeric form, built by hand from its base-10000 digits.
    func binary(digits: [UInt16], weight: Int16, negative: Bool = false, scale: Int16) -> [UInt8] {
        let words: [UInt16] = [UInt16(digits.count), UInt16(bitPattern: weight), negative ? 0x4000 : 0, UInt16(bitPattern: scale)] + digits
        var bytes: [UInt8] = []
        for index in words.indices {
            bytes += [UInt8(words[index] >> 8), UInt8(words[index] & 0xff)]
        }
        return bytes
    }

    @Test("binary numerics decode to the exact decimal, whatever their weight and scale")
    func numericDecoding() {
        let cases: [([UInt16], Int16, Bool, Int16, String)] = [
            ([], 0, false, 0, "0"),
            ([], 0, false, 3, "0"),
            ([123, 4500], 0, false, 4, "123.45"),
            ([1], 1, false, 0, "10000"),
            ([9999], 1, false, 0, "99990000"),
            ([5], -2, false, 8, "0.00000005"),
            ([5], -2, true, 8, "-0.00000005"),
            ([1000], -1, false, 1, "0.1"),
            ([1234, 5678, 9012, 3456, 7890, 1234, 5678, 9012, 3456, 7800], 4, false, 18, "12345678901234567890.123456789012345678"),
        ]
        for (digits, weight, negative, scale, expected) in cases {
            let decoded = PostgreSQLNumeric.decimal(fromBinary: binary(digits: digits, weight: weight, negative: negative, scale: scale))
            #expect(decoded == Decimal(string: expected), "\(digits) weight \(weight) scale \(scale)")
        }
        #expect(PostgreSQLNumeric.decimal(fromBinary: [0, 0]) == nil)
        #expect(PostgreSQLNumeric.decimal(fromBinary: binary(digits: [10_000], weight: 0, scale: 0)) == nil)
        #expect(PostgreSQLNumeric.decimal(fromBinary: [0, 0, 0, 0, 0xD0, 0, 0, 0]) == nil)  // +infinity
        #expect(PostgreSQLNumeric.decimal(fromBinary: [0, 0, 0, 0, 0xC0, 0, 0, 0])?.isNaN == true)
    }

    @Test("the SQL log writes each value in for its placeholder, never inside quotes, and leaves others alone")
    func logExpansion() {
        let expanded = PostgreSQLStatementText.expanding(
            "SELECT '$1', \"$2\", $1, $2, $10, $3 FROM t WHERE a = $1",
            with: [.text("it's"), .int64(7), .null])
        #expect(expanded == "SELECT '$1', \"$2\", 'it''s', 7, $10, NULL FROM t WHERE a = 'it''s'")
        #expect(PostgreSQLStatementText.expanding("SELECT $1", with: []) == "SELECT $1")
        #expect(PostgreSQLStatementText.expanding("SELECT $1", with: [.bytes([0, 255])]) == "SELECT '\\x00ff'::bytea")
    }

    @Test("a name longer than PostgreSQL keeps is shortened to 63 bytes, uniquely and always the same way")
    func longNames() {
        let short = "Item.index(rank)"
        #expect(SQLDialect.postgreSQL.fittedName(short) == short)
        let long = "Subscription.unique(" + String(repeating: "organisationIdentifier,", count: 4) + "é)"
        let fitted = SQLDialect.postgreSQL.fittedName(long)
        #expect(fitted.utf8.count <= 63)
        #expect(fitted == SQLDialect.postgreSQL.fittedName(long))
        #expect(fitted != SQLDialect.postgreSQL.fittedName(long + "x"))
        #expect(fitted.hasPrefix("Subscription.unique(organisation"))
        #expect(SQLDialect.sqlite.fittedName(long) == long)
        // Multi-byte characters are never cut in half.
        let emoji = String(repeating: "🎉", count: 30)
        #expect(SQLDialect.postgreSQL.fittedName(emoji).utf8.count <= 63)
        #expect(SQLDialect.postgreSQL.quotedName(emoji).hasPrefix("\"🎉"))
    }

    @Test("a connection string is read with libpq's parser; its description names server, database and user only")
    func connectionStringDescription() throws {
        let keywords = try PostgreSQLConnectionString("host=db1,db2 port=5433,5434 dbname=orders user=app password=xyzzy-1")
        #expect(keywords.server == "db1:5433,db2:5434")
        #expect(keywords.description == "postgresql://app@db1:5433,db2:5434/orders")
        let socket = try PostgreSQLConnectionString("postgresql:///orders?host=/tmp/sockets&user=app")
        #expect(socket.server == "/tmp/sockets/.s.PGSQL.5432")
        #expect(socket.database == "orders")
    }
}
