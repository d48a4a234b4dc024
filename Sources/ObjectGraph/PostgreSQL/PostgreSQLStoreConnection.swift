import Foundation

/// A ``PostgreSQLConnection`` as a ``SQLStore`` uses it (``SQLConnection``): statements bound by
/// index and stepped through row by row as SQLite's are, their values converted to the types the
/// server infers for each parameter (see ``PostgreSQLValue/parameter(_:as:)``).
///
/// Lent to one caller at a time, as the connection it wraps.
final class PostgreSQLStoreConnection: SQLConnection {
    let connection: PostgreSQLConnection
    /// The store's description, which errors name.
    let path: String
    private var statements: [String: PostgreSQLStatement] = [:]
    /// Statements of fetches, most recently used last.
    private var queryStatements: [String: PostgreSQLStatement] = [:]
    private var queryStatementOrder: [String] = []
    /// Statements whose answers were sent ahead (``sendAhead(_:)``) and may not be taken yet.
    private var sentAhead: [PostgreSQLStatement] = []

    init(_ connection: PostgreSQLConnection, path: String) {
        self.connection = connection
        self.path = path
    }

    var dialect: SQLDialect { .postgreSQL }

    var logNote: [String] {
        get { connection.logNote }
        set { connection.logNote = newValue }
    }

    func statement(_ sql: String) throws(ObjectGraphError) -> PostgreSQLStatement {
        if let cached = statements[sql] { return cached }
        let statement = PostgreSQLStatement(sql: sql, connection: self)
        statements[sql] = statement
        return statement
    }

    func queryStatement(_ sql: String) throws(ObjectGraphError) -> PostgreSQLStatement {
        if let cached = queryStatements[sql] { return cached }
        let statement = PostgreSQLStatement(sql: sql, connection: self)
        if queryStatementOrder.count >= SQLiteConnection.queryStatementCacheSize {
            queryStatements[queryStatementOrder.removeFirst()] = nil
        }
        queryStatements[sql] = statement
        queryStatementOrder.append(sql)
        return statement
    }

    func prepare(_ sql: String) throws(ObjectGraphError) -> PostgreSQLStatement {
        PostgreSQLStatement(sql: sql, connection: self)
    }

    func execute(_ sql: String) throws(ObjectGraphError) {
        do throws(ObjectGraphError) {
            try connection.executeScript(sql)
        } catch {
            throw Self.translated(error)
        }
    }

    func text(_ sql: String) throws(ObjectGraphError) -> String? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        return try statement.step() && !statement.isNull(at: 0) ? statement.string(at: 0) : nil
    }

    func readTransaction<Result>(_ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        guard !connection.isInTransaction else { return try body() }
        return try connection.transaction(.readOnlySnapshot, body)
    }

    /// Runs `statements` with their current bindings in one round trip (with the transaction's
    /// deferred `BEGIN`): each keeps its answer for its next ``PostgreSQLStatement/step()``, if
    /// it is then bound to the same values (otherwise it runs again). Call it in a read
    /// transaction, whose snapshot the answers and every later statement share, and
    /// ``forgetAnswersAhead()`` before the transaction ends.
    func sendAhead(_ statements: [PostgreSQLStatement]) throws(ObjectGraphError) {
        do throws(ObjectGraphError) {
            var calls: [PostgreSQLConnection.PreparedCall] = []
            for statement in statements {
                calls.append(connection.preparedCall(try connection.prepareInferringTypes(statement.sql), values: statement.values))
            }
            let results = try connection.executeTogether(calls)
            for (statement, result) in zip(statements, results) { statement.keepAnswer(result) }
            sentAhead += statements
        } catch {
            throw Self.translated(error)
        }
    }

    /// Drops the answers sent ahead and not taken.
    func forgetAnswersAhead() {
        for statement in sentAhead { statement.keepAnswer(nil) }
        sentAhead = []
    }

    func writeTransaction<Result>(_ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        try connection.transaction(.readWrite, body)
    }

    /// Runs `body` in a savepoint: PostgreSQL fails the whole transaction on any error, so a
    /// write a `UNIQUE` index refuses (SQLSTATE 23505) is undone back to it, and the
    /// transaction goes on.
    func refusingDuplicates<Result>(_ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result? {
        do throws(ObjectGraphError) {
            return try connection.transaction(.readWrite, body)
        } catch {
            if case .postgreSQL(_, _, Self.uniqueViolation, _) = error { return nil }
            throw error
        }
    }

    /// The store's tables, in the schema its tables are created in (the first of the search path).
    func tableNames() throws(ObjectGraphError) -> Set<String> {
        let statement = try prepare("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        defer { statement.reset() }
        var names: Set<String> = []
        while try statement.step() { names.insert(statement.string(at: 0)) }
        return names
    }

    /// The indexes the store made, by name: each carries the SQL it was made with as its
    /// comment (PostgreSQL keeps a normalised text of its own), see ``SchemaDefinitions/Index``.
    func storeIndexes() throws(ObjectGraphError) -> [String: String] {
        let statement = try prepare("""
            SELECT c.relname, obj_description(c.oid, 'pg_class') FROM pg_class AS c
            WHERE c.relkind = 'i' AND c.relnamespace = current_schema()::regnamespace
            AND obj_description(c.oid, 'pg_class') LIKE 'CREATE %'
            """)
        defer { statement.reset() }
        var found: [String: String] = [:]
        while try statement.step() { found[statement.string(at: 0)] = statement.string(at: 1) }
        return found
    }

    func storeTriggers() throws(ObjectGraphError) -> Set<StoreTrigger> {
        let statement = try prepare("""
            SELECT t.tgname, c.relname FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
            WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace
            """)
        defer { statement.reset() }
        var triggers: Set<StoreTrigger> = []
        while try statement.step() { triggers.insert(StoreTrigger(name: statement.string(at: 0), table: statement.string(at: 1))) }
        return triggers
    }

    /// Runs `statement` with its bindings: the rows, or the typed error.
    func run(_ statement: PostgreSQLStatement) throws(ObjectGraphError) -> PostgreSQLResult {
        let values = statement.values
        do throws(ObjectGraphError) {
            return try connection.execute(statement.sql) { types in
                types.enumerated().map { index, type in
                    PostgreSQLValue.parameter(index < values.count ? values[index] : .null, as: type)
                }
            }
        } catch {
            throw Self.translated(error)
        }
    }

    /// SQLSTATE of a write a `UNIQUE` index refused.
    static let uniqueViolation = "23505"

    /// A query that met what Swift traps on is ``ObjectGraphError/predicateFailed(entity:message:)``.
    static func translated(_ error: ObjectGraphError) -> ObjectGraphError {
        guard case let .postgreSQL(_, _, code, message) = error else { return error }
        return PostgreSQLQueryFunctions.predicateFailure(code: code, message: message) ?? error
    }
}

/// One statement of a ``PostgreSQLStoreConnection``: its bindings are kept until rebound (as
/// SQLite's are), it runs on the first ``step()``, and its rows are then read in place.
final class PostgreSQLStatement: SQLStatement {
    let sql: String
    private unowned let connection: PostgreSQLStoreConnection
    /// The bound values by parameter, from `$1`.
    private(set) var values: [PropertyValue] = []
    private var result: PostgreSQLResult?
    private var row = -1
    /// An answer sent ahead (``PostgreSQLStoreConnection/sendAhead(_:)``), and the values it was run with.
    private var answer: (values: [PropertyValue], result: PostgreSQLResult)?

    init(sql: String, connection: PostgreSQLStoreConnection) {
        self.sql = sql
        self.connection = connection
    }

    func step() throws(ObjectGraphError) -> Bool {
        if result == nil {
            if let answer, answer.values == values {
                result = answer.result
            } else {
                result = try connection.run(self)
            }
            answer = nil
            row = -1
        }
        row += 1
        return row < result!.rowCount
    }

    /// Keeps `result`, run with the current bindings, for the next ``step()``; `nil` drops it.
    func keepAnswer(_ result: PostgreSQLResult?) {
        answer = result.map { (values, $0) }
    }

    func run() throws(ObjectGraphError) {
        defer { reset() }
        _ = try connection.run(self)
    }

    func reset() {
        result = nil
        row = -1
    }

    // MARK: Binding

    func bind(_ value: PropertyValue, at index: Int32) throws(ObjectGraphError) {
        let position = Int(index) - 1
        if values.count <= position { values += Array(repeating: .null, count: position + 1 - values.count) }
        values[position] = value
    }

    func bind(_ value: Int64, at index: Int32) throws(ObjectGraphError) { try bind(.integer(value), at: index) }
    func bind(_ value: Double, at index: Int32) throws(ObjectGraphError) { try bind(.double(value), at: index) }
    func bind(_ value: String, at index: Int32) throws(ObjectGraphError) { try bind(.string(value), at: index) }
    func bind(_ value: Data, at index: Int32) throws(ObjectGraphError) { try bind(.data(value), at: index) }
    func bindNull(at index: Int32) throws(ObjectGraphError) { try bind(.null, at: index) }

    // MARK: Reading

    var columnCount: Int32 { Int32(result?.columnCount ?? 0) }

    func isNull(at column: Int32) -> Bool {
        result?.isNull(row: row, column: Int(column)) ?? true
    }

    private func value(at column: Int32) -> PostgreSQLValue {
        guard let result, let value = try? result.value(row: row, column: Int(column)) else { return .null }
        return value
    }

    func int64(at column: Int32) -> Int64 {
        switch value(at: column) {
        case .int64(let integer): integer
        case .bool(let bool): bool ? 1 : 0
        case .double(let double): Int64(exactly: double) ?? 0
        default: 0
        }
    }

    func string(at column: Int32) -> String {
        switch value(at: column) {
        case .text(let text), .jsonb(let text), .literal(let text): text
        case .int64(let integer): String(integer)
        case .double(let double): String(double)
        case .bool(let bool): bool ? "1" : "0"
        case .numeric(let decimal): decimal.description
        case .uuid(let uuid): uuid.uuidString
        default: ""
        }
    }

    func data(at column: Int32) -> Data {
        if case .bytes(let bytes) = value(at: column) { return Data(bytes) }
        return Data()
    }

    func double(at column: Int32) throws(ObjectGraphError) -> Double {
        switch value(at: column) {
        case .double(let double): return double
        case .int64(let integer): return Double(integer)
        case let other: throw malformed(column, "a double precision was expected, not \(other.literalForLog)")
        }
    }

    func attribute(_ type: AttributeType, at column: Int32) throws(ObjectGraphError) -> PropertyValue {
        guard let result else { return .null }
        let raw: PostgreSQLValue
        do throws(ObjectGraphError) {
            raw = try result.value(row: row, column: Int(column))
        } catch {
            throw malformed(column, "\(error)")
        }
        guard let value = raw.attribute(type) else {
            throw malformed(column, "a \(type.rawValue) attribute cannot be read from \(result.columnType(Int(column)))")
        }
        return value
    }

    private func malformed(_ column: Int32, _ problem: String) -> ObjectGraphError {
        let name = result.map { $0.columnName(Int(column)) } ?? "column \(column)"
        return .corruptStore(path: connection.path, message: "\(name): \(problem)")
    }
}
