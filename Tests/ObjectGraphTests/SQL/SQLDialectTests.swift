import Foundation
@testable import ObjectGraph
import Testing

@Suite("SQL dialects: one quoting function each, and every migration operation rendered for SQLite and PostgreSQL")
struct SQLDialectTests {
    @Test("names and literals are quoted the same way in both dialects, each quote doubled, byte by byte")
    func quoting() {
        for dialect in SQLDialect.allCases {
            #expect(dialect.quotedName("Item") == "\"Item\"")
            #expect(dialect.quotedName("a\"b") == "\"a\"\"b\"")
            #expect(dialect.literal("it's") == "'it''s'")
            // A quote followed by a combining mark is one Character, but still a quote byte.
            #expect(dialect.literal("'\u{301}") == "'''\u{301}'")
        }
        #expect(SQLDialect.sqlite.placeholder(3) == "?3")
        #expect(SQLDialect.postgreSQL.placeholder(3) == "$3")
    }

    @Test("every migration operation renders as expected in each dialect")
    func operations() {
        let table = SQLTable.entities("Item", columns: [.property("title", .attribute(.string)), .property("size", .attribute(.double))])
        let cases: [(MigrationOperation, sqlite: [String], postgreSQL: [String])] = [
            (.createTable(table),
             [#"CREATE TABLE "Item" (pk INTEGER PRIMARY KEY, entity TEXT NOT NULL, version INTEGER NOT NULL, "title" TEXT, "size" REAL)"#],
             [#"CREATE TABLE "Item" (pk bigint PRIMARY KEY, entity text NOT NULL, version bigint NOT NULL, "title" text, "size" double precision)"#]),
            (.createTable(.pairs("Item.tags-Tag.items")),
             [#"CREATE TABLE "Item.tags-Tag.items" (owner INTEGER NOT NULL, target INTEGER NOT NULL, PRIMARY KEY (owner, target)) WITHOUT ROWID"#],
             [#"CREATE TABLE "Item.tags-Tag.items" (owner bigint NOT NULL, target bigint NOT NULL, PRIMARY KEY (owner, target))"#]),
            (.createTable(.order("Item.parts~order")),
             [#"CREATE TABLE "Item.parts~order" (owner INTEGER NOT NULL, target INTEGER NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (owner, target)) WITHOUT ROWID"#],
             [#"CREATE TABLE "Item.parts~order" (owner bigint NOT NULL, target bigint NOT NULL, position bigint NOT NULL, PRIMARY KEY (owner, target))"#]),
            (.addColumn(table: "Item", column: "done", type: .attribute(.bool), defaultValue: .bool(false)),
             [#"ALTER TABLE "Item" ADD COLUMN "done" INTEGER DEFAULT 0"#],
             [#"ALTER TABLE "Item" ADD COLUMN "done" boolean DEFAULT FALSE"#]),
            (.addColumn(table: "Item", column: "note", type: .attribute(.string), defaultValue: nil),
             [#"ALTER TABLE "Item" ADD COLUMN "note" TEXT"#], [#"ALTER TABLE "Item" ADD COLUMN "note" text"#]),
            (.addColumn(table: "Item", column: "price", type: .attribute(.decimal), defaultValue: .string("1.50")),
             [#"ALTER TABLE "Item" ADD COLUMN "price" TEXT DEFAULT '1.50'"#],
             [#"ALTER TABLE "Item" ADD COLUMN "price" numeric DEFAULT '1.50'::numeric"#]),
            (.addColumn(table: "Item", column: "ratio", type: .attribute(.double), defaultValue: .double(-0.0)),
             [#"ALTER TABLE "Item" ADD COLUMN "ratio" REAL DEFAULT x'8000000000000000'"#],
             [#"ALTER TABLE "Item" ADD COLUMN "ratio" double precision DEFAULT '-0'::float8"#]),
            (.addColumn(table: "Item", column: "id", type: .attribute(.uuid), defaultValue: .uuid(UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)))),
             [#"ALTER TABLE "Item" ADD COLUMN "id" BLOB DEFAULT x'000102030405060708090a0b0c0d0e0f'"#],
             [#"ALTER TABLE "Item" ADD COLUMN "id" uuid DEFAULT '00010203-0405-0607-0809-0a0b0c0d0e0f'::uuid"#]),
            (.addColumn(table: "Item", column: "owner", type: .key, defaultValue: nil),
             [#"ALTER TABLE "Item" ADD COLUMN "owner" INTEGER"#], [#"ALTER TABLE "Item" ADD COLUMN "owner" bigint"#]),
            (.copyLinksToJoinTable(joinTable: "J", ownColumn: "owner", otherColumn: "target", table: "Item", column: "box", scope: ["A", "B"]),
             [#"INSERT OR IGNORE INTO "J" (owner, target) SELECT "box", pk FROM "Item" WHERE "box" IS NOT NULL AND entity IN ('A', 'B')"#],
             [#"INSERT INTO "J" (owner, target) SELECT "box", pk FROM "Item" WHERE "box" IS NOT NULL AND entity IN ('A', 'B') ON CONFLICT DO NOTHING"#]),
            (.fillToOneFromJoinTable(table: "Item", column: "box", joinTable: "J", ownColumn: "owner", otherColumn: "target"),
             [#"UPDATE "Item" SET "box" = (SELECT owner FROM "J" WHERE target = "Item".pk LIMIT 1) WHERE pk IN (SELECT target FROM "J")"#],
             [#"UPDATE "Item" SET "box" = (SELECT owner FROM "J" WHERE target = "Item".pk LIMIT 1) WHERE pk IN (SELECT target FROM "J")"#]),
            (.renameRowEntities(table: "Item", renames: [.init(from: "Old", to: "New")]),
             [#"UPDATE "Item" SET entity = CASE entity WHEN 'Old' THEN 'New' END WHERE entity IN ('Old')"#],
             [#"UPDATE "Item" SET entity = CASE entity WHEN 'Old' THEN 'New' END WHERE entity IN ('Old')"#]),
            (.renameKeyRows([.init(from: "A", to: "B"), .init(from: "B", to: "A")]),
             [#"UPDATE "objectgraph-keys" SET root = '~' || root WHERE root IN ('A', 'B')"#,
              #"UPDATE "objectgraph-keys" SET root = 'B' WHERE root = '~A'"#, #"UPDATE "objectgraph-keys" SET root = 'A' WHERE root = '~B'"#],
             [#"UPDATE "objectgraph-keys" SET root = '~' || root WHERE root IN ('A', 'B')"#,
              #"UPDATE "objectgraph-keys" SET root = 'B' WHERE root = '~A'"#, #"UPDATE "objectgraph-keys" SET root = 'A' WHERE root = '~B'"#]),
            (.deleteKeyRows(roots: ["Gone"]),
             [#"DELETE FROM "objectgraph-keys" WHERE root IN ('Gone')"#], [#"DELETE FROM "objectgraph-keys" WHERE root IN ('Gone')"#]),
            (.insertKeyRow(root: "Item"),
             [#"INSERT INTO "objectgraph-keys" (root, next) VALUES ('Item', 1)"#], [#"INSERT INTO "objectgraph-keys" (root, next) VALUES ('Item', 1)"#]),
            (.fillNulls(table: "Item", column: "rank", value: .integer(3), type: .integer, scope: ["Item"]),
             [#"UPDATE "Item" SET "rank" = 3 WHERE "rank" IS NULL AND entity IN ('Item')"#],
             [#"UPDATE "Item" SET "rank" = 3 WHERE "rank" IS NULL AND entity IN ('Item')"#]),
            (.fillNulls(table: "Item", column: "when", value: .date(Date(timeIntervalSinceReferenceDate: 1.5)), type: .date, scope: nil),
             [#"UPDATE "Item" SET "when" = 1.5 WHERE "when" IS NULL"#], [#"UPDATE "Item" SET "when" = 1.5::float8 WHERE "when" IS NULL"#]),
            (.clearLinks(table: "Item", column: "box", targetTable: "Box", targets: ["Crate"]),
             [#"UPDATE "Item" SET "box" = NULL WHERE "box" IN (SELECT pk FROM "Box" WHERE entity IN ('Crate'))"#],
             [#"UPDATE "Item" SET "box" = NULL WHERE "box" IN (SELECT pk FROM "Box" WHERE entity IN ('Crate'))"#]),
            (.deleteLinks(joinTable: "J", column: "target", targetTable: "Box", targets: ["Crate"]),
             [#"DELETE FROM "J" WHERE target IN (SELECT pk FROM "Box" WHERE entity IN ('Crate'))"#],
             [#"DELETE FROM "J" WHERE target IN (SELECT pk FROM "Box" WHERE entity IN ('Crate'))"#]),
            (.deleteRows(table: "Box", rowNames: ["Crate"]),
             [#"DELETE FROM "Box" WHERE entity IN ('Crate')"#], [#"DELETE FROM "Box" WHERE entity IN ('Crate')"#]),
            (.dropColumns(table: "Item", columns: ["a", "b"]),
             [#"ALTER TABLE "Item" DROP COLUMN "a""#, #"ALTER TABLE "Item" DROP COLUMN "b""#],
             [#"ALTER TABLE "Item" DROP COLUMN "a""#, #"ALTER TABLE "Item" DROP COLUMN "b""#]),
            (.dropTable("Box"), [#"DROP TABLE "Box""#], [#"DROP TABLE "Box""#]),
            (.renameTable(from: "Box", to: "Crate"), [#"ALTER TABLE "Box" RENAME TO "Crate""#], [#"ALTER TABLE "Box" RENAME TO "Crate""#]),
            (.renameColumn(table: "Box", from: "a", to: "b"),
             [#"ALTER TABLE "Box" RENAME COLUMN "a" TO "b""#], [#"ALTER TABLE "Box" RENAME COLUMN "a" TO "b""#]),
        ]
        for (operation, sqlite, postgreSQL) in cases {
            #expect(operation.statements(in: .sqlite) == sqlite)
            #expect(operation.statements(in: .postgreSQL) == postgreSQL)
        }
    }

    @Test("data checks ask for the offending value as text in each dialect")
    func dataChecks() {
        let narrowing = DataCheck.Query.valueOutside(table: "Item", column: "rank", range: -128...127, scope: ["Item"])
        #expect(narrowing.sql(in: .sqlite) == #"SELECT "rank" FROM "Item" WHERE ("rank" < -128 OR "rank" > 127) AND entity IN ('Item') LIMIT 1"#)
        #expect(narrowing.sql(in: .postgreSQL) == #"SELECT ("rank")::text FROM "Item" WHERE ("rank" < -128 OR "rank" > 127) AND entity IN ('Item') LIMIT 1"#)
        let owners = DataCheck.Query.targetOfSeveralOwners(joinTable: "J", targetColumn: "target")
        #expect(owners.sql(in: .sqlite) == #"SELECT target FROM "J" GROUP BY target HAVING count(*) > 1 LIMIT 1"#)
        #expect(owners.sql(in: .postgreSQL) == #"SELECT (target)::text FROM "J" GROUP BY target HAVING count(*) > 1 LIMIT 1"#)
    }

    @Test("the SQLite definitions of a model are the text existing files hold, so that opening them rebuilds no index")
    func sqliteDefinitionsUnchanged() throws {
        let definitions = SchemaDefinitions(StoredSchema(model: UniquenessModel.model))
        #expect(definitions.creationStatements.first == #"CREATE TABLE "objectgraph-metadata" (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)"#)
        #expect(definitions.creationStatements.dropFirst().first == #"CREATE TABLE "objectgraph-keys" (root TEXT PRIMARY KEY NOT NULL, next INTEGER NOT NULL)"#)
        let unique = try #require(definitions.indexes.first { $0.constraint != nil })
        #expect(unique.sql.hasPrefix("CREATE UNIQUE INDEX \"\(unique.name)\" ON \"\(unique.table)\" ("))
        let postgreSQL = SchemaDefinitions(StoredSchema(model: UniquenessModel.model), dialect: .postgreSQL)
        #expect(postgreSQL.indexes.map(\.name) == definitions.indexes.map(\.name))
        #expect(!postgreSQL.creationStatements.joined().contains("WITHOUT ROWID"))
        #expect(!postgreSQL.creationStatements.joined().contains("og_string"))
    }
}
