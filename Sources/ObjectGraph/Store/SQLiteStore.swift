import Foundation
import Streams
import Synchronization

/// The store of a ``PersistentContainer`` opened with a file URL: one SQLite database in WAL
/// mode, laid out as ``SQLSchema`` describes, with the same semantics as the in-memory store
/// (versions, conflicts, merge policies, atomic saves).
///
/// ```swift
/// let container = try PersistentContainer(model: model, storeURL: url)
/// ```
///
/// Durability: every save is one `BEGIN IMMEDIATE … COMMIT` transaction with
/// `synchronous=FULL`, so a save that returned survives a crash of the process *and* of the
/// machine (in WAL mode, `NORMAL` would survive the process being killed but could lose the last
/// saves on power loss). The cost is one `fsync` of the WAL per save, not per row.
///
/// Saves and key allocation go through one writer connection; fetches go through a small pool
/// of read-only connections (``SQLiteReadPool``), so that a fetch never waits for a save in
/// progress and never sees one in part.
///
/// Several containers, in one process or several, may open the same file: each has its own
/// connection, SQLite's file locks order their writes, and primary keys come from a table that
/// is updated in write transactions, so no two containers hand out the same key.
final class SQLiteStore: SQLStore, @unchecked Sendable {
    typealias Connection = SQLiteConnection

    // `lock` serializes every use of `connection`, the writer (its statement cache, its
    // transaction state and the statements' bindings and cursors) and protects `keys`. Each
    // method holds it from its first statement to the last reset, so two saves never
    // interleave. It also protects `hasHistoryTables` and `creatingHistoryTables`. Nothing
    // called under the lock calls out. Reads do not take it:
    // they run on `readers`, beside a save in progress.
    private let lock = Lock()
    private let connection: SQLiteConnection
    /// The connections fetches read through (see ``SQLiteReadPool``).
    let readers: SQLiteReadPool
    /// Where the connections report their statements (see ``PersistentContainer/sqlLogHandler``).
    let sqlLog = SQLLog()
    /// How many rows have been decoded into ``StoredRow``s.
    let decodedRowCount = DecodedRowCounter()
    /// Damage a read or write has met; once there is some, nothing more is written.
    let damage: StoreDamage
    private var keys = KeyReservations()

    let path: String
    let model: ObjectModel
    /// How the store's connections are set up.
    let options: SQLiteOptions
    let schema: SQLSchema
    /// The statements of the fetch shapes run on this store; the schema is fixed for its life.
    let fetchStatements = FetchStatementCache()
    /// Whether saves and batches write persistent history (see SQLiteStore+History.swift).
    /// Off for a migration's store.
    let recordsHistory: Bool

    /// Whether the file has the history tables. A file gets them with its first write of the
    /// store's own, so that opening a file never writes it.
    var hasHistoryTables = false
    /// Set while a write transaction creates them; they count once it commits.
    var creatingHistoryTables = false

    /// Opens the store at `url`, creating the file and its tables if the file is missing or
    /// empty, and migrating it to `model` (see ``MigrationPlan``) if an earlier model wrote it.
    ///
    /// - Throws: ``ObjectGraphError/storeUnavailable(path:message:)`` if the file cannot be opened
    ///   or created, ``ObjectGraphError/corruptStore(path:message:)`` if it is not a database or
    ///   is damaged, ``ObjectGraphError/incompatibleStore(path:message:)`` if it is not an
    ///   ObjectGraph store, ``ObjectGraphError/newerStore(path:fileVersion:modelVersion:)``,
    ///   ``ObjectGraphError/migrationRefused(path:changes:)``,
    ///   ``ObjectGraphError/migrationStageFailed(path:stage:message:)`` or
    ///   ``ObjectGraphError/uniquenessViolationInStore(path:index:conflicts:)`` (a uniqueness
    ///   constraint's index is missing from the file and objects already collide). In every case
    ///   the file is left as it was.
    ///
    /// With `recordsHistory` off, saves write no history: other containers then take them for
    /// writes that bypassed the store (see ``ChangeFeedOptions/recordsHistory``).
    init(
        url: URL, model: ObjectModel, migrationPlan: MigrationPlan = MigrationPlan(), options: SQLiteOptions = SQLiteOptions(),
        recordsHistory: Bool = true
    ) throws(ObjectGraphError) {
        path = url.path
        self.model = model
        self.options = options
        self.recordsHistory = recordsHistory
        try SQLiteStoreOpening.checkBeforeOpening(path: path)
        let damage = StoreDamage()
        self.damage = damage
        connection = try SQLiteConnection(path: path, firesTriggers: !recordsHistory, options: options, log: sqlLog, damage: damage)
        let opened = try SQLiteStoreOpening(connection: connection, model: model, plan: migrationPlan).prepareFile()
        hasHistoryTables = try connection.tableNames().contains(HistorySQL.stateTableName)
        schema = opened.layout(for: model, dialect: .sqlite)
        readers = SQLiteReadPool(path: path, options: options, log: sqlLog, damage: damage)
        try restoreMissingIndexes(on: connection)
        try restoreForeignWriteTriggers(on: connection)
    }

    /// A store for a migration stage: it reads and writes through `connection`, inside the
    /// transaction the migration has open, with the file laid out as `stored` says.
    init(migrating connection: SQLiteConnection, model: ObjectModel, stored: StoredSchema) {
        path = connection.path
        self.model = model
        self.connection = connection
        options = connection.options
        damage = connection.damage ?? StoreDamage()
        schema = SQLSchema(model: model, stored: stored)
        readers = SQLiteReadPool(pinnedTo: connection)
        recordsHistory = false
    }

    deinit {
        readers.closeIdleConnections()  // before the writer, so that it closes the file last
    }

    // MARK: Keys

    func allocatePrimaryKeys(root: EntityDescription, count: Int) throws(ObjectGraphError) -> ClosedRange<Int64> {
        defer { sqlLog.deliverPending() }
        lock.lock()
        defer { lock.unlock() }
        do throws(ObjectGraphError) {
            return try keys.take(count, root: root.rootName) { blockSize throws(ObjectGraphError) -> Int64 in
                try damage.check()
                return try writeTransactionWithLockHeld { () throws(ObjectGraphError) -> Int64 in
                    let next = try reserveKeyBlock(of: root.rootName, blockSize: blockSize, on: connection)
                    try noteWriteWithoutHistory(on: connection)
                    return next
                }
            }
        } catch {
            damage.note(error)
            throw error
        }
    }

    /// Runs `body` with a reader from the pool (see ``SQLStore/withReadConnection(inOneTransaction:_:)``).
    func withReadConnection<Result>(
        inOneTransaction: Bool, _ body: (SQLiteConnection) throws(ObjectGraphError) -> Result
    ) throws(ObjectGraphError) -> Result {
        defer { sqlLog.deliverPending() }
        do throws(ObjectGraphError) {
            return try readers.read(inOneTransaction: inOneTransaction, body)
        } catch {
            damage.note(error)
            throw error
        }
    }

    /// Checkpoints and closes the connections; later calls throw
    /// ``ObjectGraphError/storeClosed(path:)``.
    func close() {
        readers.close()  // before the writer, so that it closes the file last
        lock.withLock { connection.close() }
    }

    /// Runs `body` with the lock held and the connection in a write transaction; refused once
    /// the store has met damage (see ``StoreDamage``).
    func withWriteTransaction<Result>(_ body: (SQLiteConnection) throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        defer { sqlLog.deliverPending() }
        lock.lock()
        defer { lock.unlock() }
        do throws(ObjectGraphError) {
            try damage.check()
            return try writeTransactionWithLockHeld { () throws(ObjectGraphError) -> Result in try body(connection) }
        } catch {
            damage.note(error)
            throw error
        }
    }

    /// A write transaction on the writer, the lock held by the caller; the history tables it
    /// creates count once it commits.
    private func writeTransactionWithLockHeld<Result>(_ body: () throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        defer { creatingHistoryTables = false }
        let result = try connection.writeTransaction(body)
        if creatingHistoryTables { hasHistoryTables = true }
        return result
    }
}
