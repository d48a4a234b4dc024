import Foundation

/// A connection a ``SQLStore`` runs its statements on: SQLite's (``SQLiteConnection``) or
/// PostgreSQL's (``PostgreSQLStoreConnection``). The store's logic — saves, conflicts,
/// references, ordered relationships, batches, queries — is written once against this and
/// ``SQLStatement``; the statements' text comes from the store's ``SQLDialect``.
///
/// Not thread-safe: the store lends a connection to one caller at a time.
protocol SQLConnection: AnyObject {
    associatedtype Statement: SQLStatement

    /// What errors name as the store (a file's path, or the server and database).
    var path: String { get }
    /// The SQL the connection speaks.
    var dialect: SQLDialect { get }
    /// The prepared statement for `sql`, prepared once and reused for the connection's life.
    func statement(_ sql: String) throws(ObjectGraphError) -> Statement
    /// The prepared statement of a fetch (or of an update that assigns some columns only), kept
    /// while it is among the most recently used.
    func queryStatement(_ sql: String) throws(ObjectGraphError) -> Statement
    /// A statement for one use.
    func prepare(_ sql: String) throws(ObjectGraphError) -> Statement
    /// Runs statements that return nothing (schema changes).
    func execute(_ sql: String) throws(ObjectGraphError)
    /// The first column of the first row of `sql` as text, if there is a row.
    func text(_ sql: String) throws(ObjectGraphError) -> String?
    /// Runs `body` in one read transaction (one snapshot); inside a transaction, in that one.
    func readTransaction<Result>(_ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result
    /// Runs `body` in a write transaction, committed if it returns and rolled back if it
    /// throws; inside a transaction, in a savepoint of it.
    func writeTransaction<Result>(_ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result
    /// The names of the store's tables.
    func tableNames() throws(ObjectGraphError) -> Set<String>
    /// The indexes the store made (declared, relationship and join-table ones), by name, with
    /// the SQL each was made with (see ``SchemaDefinitions/Index``).
    func storeIndexes() throws(ObjectGraphError) -> [String: String]
    /// The triggers on the store's tables.
    func storeTriggers() throws(ObjectGraphError) -> Set<StoreTrigger>
    /// Runs `body`, which writes; when a `UNIQUE` index refuses one of its writes, what `body`
    /// wrote is undone, the transaction goes on, and the result is `nil`.
    func refusingDuplicates<Result>(_ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result?
    /// What the SQL log says of the statements run now besides their SQL (see
    /// ``SQLLogEntry/evaluatedInMemory``).
    var logNote: [String] { get set }
}

/// One statement of a ``SQLConnection``: bound by index from 1, read by column from 0, as
/// SQLite numbers them. Every use ends with ``reset()``.
protocol SQLStatement: AnyObject {
    /// Advances to the next row: `true` if there is one, `false` when the statement is done.
    func step() throws(ObjectGraphError) -> Bool
    /// Runs a statement that returns no rows, then resets it.
    func run() throws(ObjectGraphError)
    /// Makes the statement ready to run again; bindings are kept until rebound.
    func reset()

    func bind(_ value: Int64, at index: Int32) throws(ObjectGraphError)
    func bind(_ value: Double, at index: Int32) throws(ObjectGraphError)
    func bind(_ value: String, at index: Int32) throws(ObjectGraphError)
    func bind(_ value: Data, at index: Int32) throws(ObjectGraphError)
    func bindNull(at index: Int32) throws(ObjectGraphError)
    /// Binds an attribute or to-one value (a to-one binds its target's primary key), in the
    /// form a column of its type holds.
    func bind(_ value: PropertyValue, at index: Int32) throws(ObjectGraphError)

    /// How many columns each row has.
    var columnCount: Int32 { get }
    func isNull(at column: Int32) -> Bool
    func int64(at column: Int32) -> Int64
    func string(at column: Int32) -> String
    func data(at column: Int32) -> Data
    func double(at column: Int32) throws(ObjectGraphError) -> Double
    /// Reads an attribute of `type`; NULL is `.null` whatever the type.
    func attribute(_ type: AttributeType, at column: Int32) throws(ObjectGraphError) -> PropertyValue
}
