import Foundation
import Streams

/// The store of a ``PersistentContainer`` opened with ``StoreKind/postgreSQL(_:migrationPlan:)``:
/// the model's tables in a PostgreSQL database (in the first schema of the connection's search
/// path), laid out and queried as ``SQLSchema`` and ``SQLQueryRenderer`` describe for the
/// PostgreSQL dialect, with the same semantics as SQLite and memory (versions, conflicts, merge
/// policies, atomic saves, uniqueness, ordered relationships, batches).
///
/// ```swift
/// let container = try PersistentContainer(
///     model: model, store: .postgreSQL("postgresql://app@db.example.com/orders?sslmode=verify-full"))
/// ```
///
/// Connections come from a ``PostgreSQLConnectionPool``: one writer for this container's saves
/// and a few readers for fetches, which run beside a save and never see one in part. Writers
/// of *all* containers on the store — in this process, other processes, other machines — take
/// turns: each write transaction begins by taking the store's lock (a transaction-scoped
/// advisory lock named after the database and schema), so that conflicts are judged on the
/// rows as the previous writer left them, as SQLite's single writer does. Reads never wait.
///
/// A connection lost in the middle of a save fails the save with
/// ``ObjectGraphError/connectionLost(server:database:message:)``; the server rolls the
/// transaction back, so nothing of it is written, and the next save connects again.
final class PostgreSQLStore: SQLStore, @unchecked Sendable {
    typealias Connection = PostgreSQLStoreConnection

    // `lock` protects `keys`. Connections are the pool's, lent one caller at a time; a store
    // made for a migration stage uses `pinned` alone, on the migration's queue.
    private let lock = Lock()
    private var keys = KeyReservations()
    private let pool: PostgreSQLConnectionPool?
    /// The one connection of a store made for a migration stage.
    let pinned: PostgreSQLStoreConnection?

    let path: String
    let model: ObjectModel
    let schema: SQLSchema
    let sqlLog = SQLLog()
    /// The statements of the fetch shapes run on this store; the schema is fixed for its life.
    let fetchStatements = FetchStatementCache()
    let decodedRowCount = DecodedRowCounter()
    /// Whether saves and batches write persistent history (off for a migration's store).
    let recordsHistory: Bool
    /// The `NOTIFY` channel of the store (see ``channel(database:schema:)``).
    let channel: String
    /// Whether saves send a `NOTIFY` on ``channel`` (see ``ChangeFeedOptions/wakesOtherWriters``).
    let wakesOtherWriters: Bool

    /// Connects, creates the store's tables in an empty schema or brings existing ones to
    /// `model` (see ``MigrationPlan``) in one transaction, and restores missing indexes.
    ///
    /// - Throws: ``ObjectGraphError/invalidConnectionString(message:)``,
    ///   ``ObjectGraphError/serverUnreachable(server:database:message:)``,
    ///   ``ObjectGraphError/loginRefused(server:database:user:message:)``,
    ///   ``ObjectGraphError/serverBusy(server:database:message:)``,
    ///   ``ObjectGraphError/incompatibleStore(path:message:)`` (a server older than 14, a
    ///   database not in UTF-8, tables that are not an ObjectGraph store), and the migration
    ///   errors SQLite's store throws; in every case the database is left as it was.
    ///
    /// With `recordsHistory` off, saves write no history, and other containers do not see them
    /// (see ``ChangeFeedOptions/recordsHistory``); with `wakesOtherWriters` off they send no
    /// `NOTIFY`, and other containers notice them by looking.
    init(
        connectionString text: String, model: ObjectModel, migrationPlan: MigrationPlan = MigrationPlan(), recordsHistory: Bool = true,
        wakesOtherWriters: Bool = true
    ) throws(ObjectGraphError) {
        let connectionString = try PostgreSQLConnectionString(text)
        path = connectionString.description
        self.model = model
        self.recordsHistory = recordsHistory
        self.wakesOtherWriters = wakesOtherWriters
        pinned = nil
        let pool = PostgreSQLConnectionPool(connectionString, log: sqlLog)
        self.pool = pool
        let path = path
        let (opened, place) = try pool.withWriter { connection throws(ObjectGraphError) -> (OpenedSchema, (database: String, schema: String)) in
            let opening = PostgreSQLStoreOpening(connection: PostgreSQLStoreConnection(connection, path: path), model: model, plan: migrationPlan)
            return (try opening.prepare(), try opening.place())
        }
        channel = Self.channel(database: place.database, schema: place.schema)
        schema = opened.layout(for: model, dialect: .postgreSQL)
        try pool.withWriter { connection throws(ObjectGraphError) in
            let adapter = PostgreSQLStoreConnection(connection, path: path)
            try restoreMissingIndexes(on: adapter) { () throws(ObjectGraphError) in try PostgreSQLStoreOpening.lockStore(on: adapter) }
            try restoreForeignWriteTriggers(on: adapter, notifying: channel) { () throws(ObjectGraphError) in
                try PostgreSQLStoreOpening.lockStore(on: adapter)
            }
            // The tables may have changed under statements prepared while opening.
            try connection.discardPreparedStatements()
        }
        sqlLog.deliverPending()
    }

    /// A store for a migration stage: it reads and writes through `connection`, inside the
    /// transaction the migration has open, with the tables laid out as `stored` says.
    init(migrating connection: PostgreSQLStoreConnection, model: ObjectModel, stored: StoredSchema) {
        path = connection.path
        self.model = model
        pinned = connection
        pool = nil
        recordsHistory = false
        channel = ""
        wakesOtherWriters = false
        schema = SQLSchema(model: model, stored: stored, dialect: .postgreSQL)
    }

    /// The pool of a store that is not a migration stage's (only those follow other writers).
    var writerPool: PostgreSQLConnectionPool { pool! }

    // MARK: Connections

    func withReadConnection<Result>(
        inOneTransaction: Bool, _ body: (PostgreSQLStoreConnection) throws(ObjectGraphError) -> Result
    ) throws(ObjectGraphError) -> Result {
        defer { sqlLog.deliverPending() }
        if let pinned { return try body(pinned) }
        let path = path
        return try pool!.read(inOneTransaction ? .readOnlySnapshot : nil) { connection throws(ObjectGraphError) -> Result in
            try body(PostgreSQLStoreConnection(connection, path: path))
        }
    }

    /// Runs `body` on the writer in a transaction that first takes the store's lock (see the
    /// type's comment).
    func withWriteTransaction<Result>(_ body: (PostgreSQLStoreConnection) throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        defer { sqlLog.deliverPending() }
        if let pinned { return try pinned.writeTransaction { () throws(ObjectGraphError) -> Result in try body(pinned) } }
        let path = path
        return try writerPool.write { connection throws(ObjectGraphError) -> Result in
            let adapter = PostgreSQLStoreConnection(connection, path: path)
            try PostgreSQLStoreOpening.lockStore(on: adapter)
            return try body(adapter)
        }
    }

    // MARK: Writing

    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> StoreSaveResult {
        for row in changes.inserted { try Self.checkStorable(row.slots.enumerated().lazy.map { ($0.offset, $0.element) }, of: row.id.entity) }
        for update in changes.updated { try Self.checkStorable(update.changes.lazy.map { ($0.key, $0.value) }, of: update.id.entity) }
        if let saved = try savedInOnePipeline(changes) { return saved }
        return try writeSave(changes, policy: policy)
    }

    func execute(_ batch: StoreBatch) throws -> StoreBatchResult {
        if case .update(let values) = batch.change { try Self.checkStorable(values.lazy.map { ($0.key, $0.value) }, of: batch.entity) }
        return try executeBatch(batch)
    }

    /// Refuses, before anything is written, a value PostgreSQL cannot store: text holding the
    /// NUL character (U+0000), which `text` and `jsonb` reject, where SQLite keeps it.
    static func checkStorable(_ slots: some Sequence<(Int, PropertyValue)>, of entity: EntityDescription) throws(ObjectGraphError) {
        for (slot, value) in slots {
            guard case .string(let text) = value else { continue }
            let property = entity.properties[slot]
            let holdsNUL = text.utf8.contains(0) || (property.attributeType == .codable && text.contains("\\u0000"))
            guard holdsNUL else { continue }
            throw .unencodableValue(
                entity: entity.name, property: property.name,
                reason: "PostgreSQL's text cannot hold the NUL character (U+0000); remove it, or store the value as Data")
        }
    }

    // MARK: Keys

    func allocatePrimaryKeys(root: EntityDescription, count: Int) throws(ObjectGraphError) -> ClosedRange<Int64> {
        defer { sqlLog.deliverPending() }
        lock.lock()
        defer { lock.unlock() }
        return try keys.take(count, root: root.rootName) { blockSize throws(ObjectGraphError) -> Int64 in
            // One statement: the row lock orders it with every other container's, and it waits
            // for no save (a save takes keys before it begins).
            if let pinned { return try reserveKeyBlock(of: root.rootName, blockSize: blockSize, on: pinned) }
            let path = path
            return try pool!.write { connection throws(ObjectGraphError) -> Int64 in
                try reserveKeyBlock(of: root.rootName, blockSize: blockSize, on: PostgreSQLStoreConnection(connection, path: path))
            }
        }
    }

    // MARK: Queries

    /// The statement `query` runs as, and PostgreSQL's plan for it (`EXPLAIN`).
    func explain(_ query: StoreQuery) throws(ObjectGraphError) -> (sql: String, plan: [String]) {
        let text = queryBuilder.rows(query) ?? queryBuilder.identifiers(query)
        let plan = try withReadConnection { connection throws(ObjectGraphError) -> [String] in
            try run(SQLStatementText(sql: "EXPLAIN " + text.sql, bindings: text.bindings), on: connection, cached: false) { statement in
                statement.string(at: 0)
            }
        }
        return (text.sql, plan)
    }

    // MARK: Closing

    /// Closes the connections; later calls throw ``ObjectGraphError/storeClosed(path:)``.
    func close() {
        pool?.close()
    }
}
