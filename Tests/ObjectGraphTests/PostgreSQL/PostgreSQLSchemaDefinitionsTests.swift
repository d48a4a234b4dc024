import Foundation
@testable import ObjectGraph
import Testing

/// The SQL layer's PostgreSQL dialect on a real server: the tables and indexes of real models,
/// and migration plans rendered for PostgreSQL, run and checked against the catalogue.
// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("PostgreSQL runs the SQL layer's definitions and migration plans",
       .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct PostgreSQLSchemaDefinitionsTests {
    /// Runs `body` in a schema of its own, on the search path of `connection`.
    func inSchema(_ name: String, on connection: PostgreSQLConnection, _ body: () throws -> Void) throws {
        try connection.executeOnce("CREATE SCHEMA \(SQLDialect.postgreSQL.quotedName(name))")
        try connection.executeOnce("SET search_path TO \(SQLDialect.postgreSQL.quotedName(name))")
        try body()
    }

    /// `(column, type)` of `table` in the current schema, in order.
    func columns(of table: String, on connection: PostgreSQLConnection) throws -> [String] {
        let result = try connection.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
            [.text(table)])
        return try (0..<result.rowCount).map { "\(try result.string(row: $0, column: 0)!) \(try result.string(row: $0, column: 1)!)" }
    }

    @Test("the tables and indexes of the test models are created as written, strings indexed in Swift's order")
    func modelsCreate() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let connection = try PostgreSQLConnection(database.connectionString)
            let models: [(String, ObjectModel)] = [
                ("uniqueness", UniquenessModel.model), ("library", LibraryV1.model), ("batch", BatchModel.model),
                ("membership", MembershipStores.model),
            ]
            for (name, model) in models {
                try inSchema(name, on: connection) {
                    let definitions = SchemaDefinitions(StoredSchema(model: model), dialect: .postgreSQL)
                    try connection.transaction { () throws(ObjectGraphError) in
                        for statement in definitions.creationStatements { try connection.executeOnce(statement) }
                    }
                    for table in definitions.tableDefinitions + definitions.joinTableDefinitions + definitions.orderTableDefinitions {
                        let expected = table.columns.map { "\($0.name) \(SQLDialect.postgreSQL.columnType($0.type))" }
                        #expect(try columns(of: table.name, on: connection) == expected, "\(name): \(table.name)")
                    }
                    let indexes = try connection.execute("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
                    let names = Set(try (0..<indexes.rowCount).map { try indexes.string(row: $0, column: 0)! })
                    for index in definitions.indexes { #expect(names.contains(SQLDialect.postgreSQL.fittedName(index.name)), "\(name): \(index.name)") }
                }
            }
            // A composed and a decomposed "é" are one string to Swift, and to the unique index.
            try inSchema("collation", on: connection) {
                let definitions = SchemaDefinitions(StoredSchema(model: UniquenessModel.model), dialect: .postgreSQL)
                for statement in definitions.creationStatements { try connection.executeOnce(statement) }
                let unique = try #require(definitions.indexes.first { $0.sql.contains("normalize") && $0.constraint != nil })
                let column = try #require(unique.columns.first)
                let insert = "INSERT INTO \(SQLDialect.postgreSQL.quotedName(unique.table)) (pk, entity, version, \(SQLDialect.postgreSQL.quotedName(column))) VALUES ($1, 'x', 1, $2)"
                try connection.execute(insert, [.int64(1), .text("caf\u{E9}")])
                #expect {
                    try connection.execute(insert, [.int64(2), .text("cafe\u{301}")])
                } throws: { error in
                    guard case let .postgreSQL(_, _, code, _) = error as? ObjectGraphError else { return false }
                    return code == "23505"
                }
            }
        }
    }

    @Test("migration plans rendered for PostgreSQL bring a populated schema to the model, values kept (a sample of the small-schema pairs)")
    func plansRun() throws {
        let stride = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_POSTGRES_PLAN_STRIDE"].flatMap(Int.init) ?? 23)
        let planned = MigrationPlanCase.all.filter { $0.allowsRemovals }.compactMap { planCase in
            planCase.planned().step.map { (planCase, $0) }
        }
        let sample = Swift.stride(from: 0, to: planned.count, by: max(stride, 1)).map { planned[$0] }
        #expect(sample.count > 20)
        try PostgreSQLTestServer.withDatabase { database in
            let connection = try PostgreSQLConnection(database.connectionString)
            for (number, (planCase, step)) in sample.enumerated() {
                try inSchema("case\(number)", on: connection) {
                    let old = planCase.old.stored(asFile: true)
                    for statement in SchemaDefinitions(old, dialect: .postgreSQL).creationStatements { try connection.executeOnce(statement) }
                    // One object with a value in every attribute.
                    let oldX: PostgreSQLValue? = Self.value(planCase.old.x)
                    var inserted = ["pk", "entity", "version"]
                    var values: [PostgreSQLValue] = [.int64(1), .text("A"), .int64(1)]
                    for (name, value) in [("x", oldX), ("z", Self.value(planCase.old.z))] {
                        guard let value else { continue }
                        inserted.append(SQLDialect.postgreSQL.quotedName(name))
                        values.append(value)
                    }
                    let placeholders = (1...values.count).map { "$\($0)" }.joined(separator: ", ")
                    try connection.execute("INSERT INTO \"A\" (\(inserted.joined(separator: ", "))) VALUES (\(placeholders))", values)

                    try connection.transaction { () throws(ObjectGraphError) in
                        for check in step.checks {
                            #expect(try connection.execute(check.query.sql(in: .postgreSQL)).rowCount == 0, "\(planCase.old) → \(planCase.new)")
                        }
                        for operation in step.expand + step.contract {
                            for statement in operation.statements(in: .postgreSQL) { try connection.executeOnce(statement) }
                        }
                    }
                    let target = SchemaDefinitions(step.target, dialect: .postgreSQL)
                    for table in target.tableDefinitions {
                        let expected = table.columns.map { "\($0.name) \(SQLDialect.postgreSQL.columnType($0.type))" }
                        #expect(try Set(columns(of: table.name, on: connection)) == Set(expected), "\(planCase.old) → \(planCase.new): \(table.name)")
                    }
                    let keys = try connection.execute("SELECT root FROM \"objectgraph-keys\" ORDER BY root")
                    #expect(try (0..<keys.rowCount).map { try keys.string(row: $0, column: 0)! } == target.roots.sorted())
                    // A kept `x` keeps its value, under its new name if renamed.
                    if let oldX, planCase.new.x != .absent {
                        let read = try connection.execute("SELECT \(SQLDialect.postgreSQL.quotedName(planCase.new.xName)) FROM \"A\" WHERE pk = 1")
                        #expect(try read.value(row: 0, column: 0) == oldX, "\(planCase.old) → \(planCase.new)")
                    }
                    // An added required attribute got its initial value.
                    if planCase.old.z == .absent, planCase.new.z == .bool {
                        #expect(try connection.execute("SELECT \"z\" FROM \"A\" WHERE pk = 1").value(row: 0, column: 0) == .bool(true))
                    }
                }
            }
        }
    }

    static func value(_ attribute: MigrationPlanCase.Attribute) -> PostgreSQLValue? {
        switch attribute {
        case .absent: nil
        case .int64, .optionalInt64, .int16, .legacyInteger: .int64(1_000)
        case .string: .text("it's")
        case .bool: .bool(false)
        }
    }
}
