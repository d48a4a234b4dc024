import Foundation
import Streams
import Synchronization

/// The store of a ``PersistentContainer`` opened with a file URL: one SQLite database in WAL
/// mode, laid out as ``SQLiteSchema`` describes, with the same semantics as the in-memory store
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
final class SQLiteStore: PersistentStore, @unchecked Sendable {
    // `lock` serializes every use of `connection`, the writer (its statement cache, its
    // transaction state and the statements' bindings and cursors) and protects `reservedKeys`
    // and `keyBlockSizes`. Each method holds it from its first statement to the last reset, so
    // two saves never interleave. It also protects `hasHistoryTables` and
    // `creatingHistoryTables`. Nothing called under the lock calls out. Reads do not take it:
    // they run on `readers`, beside a save in progress.
    private let lock = Lock()
    private let connection: SQLiteConnection
    /// The connections fetches read through (see ``SQLiteReadPool``).
    let readers: SQLiteReadPool
    /// Where the connections report their statements (see ``PersistentContainer/sqlLogHandler``).
    let sqlLog = SQLLog()
    /// How many rows have been decoded into ``StoredRow``s: what a fetch materialises, counted
    /// by tests that check a selective fetch reads only what it returns.
    let decodedRowCount = Atomic<Int>(0)
    /// Damage a read or write has met; once there is some, nothing more is written.
    let damage: StoreDamage
    private var reservedKeys: [String: ClosedRange<Int64>] = [:]
    private var keyBlockSizes: [String: Int] = [:]

    let path: String
    let model: ObjectModel
    let schema: SQLiteSchema
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
    init(url: URL, model: ObjectModel, migrationPlan: MigrationPlan = MigrationPlan(), recordsHistory: Bool = true) throws(ObjectGraphError) {
        path = url.path
        self.model = model
        self.recordsHistory = recordsHistory
        try SQLiteStoreOpening.checkBeforeOpening(path: path)
        let damage = StoreDamage()
        self.damage = damage
        connection = try SQLiteConnection(path: path, log: sqlLog, damage: damage)
        let stored = try SQLiteStoreOpening(connection: connection, model: model, plan: migrationPlan).prepareFile()
        hasHistoryTables = try connection.tableNames().contains(HistorySQL.stateTableName)
        schema = SQLiteSchema(model: model, stored: stored)
        readers = SQLiteReadPool(path: path, log: sqlLog, damage: damage)
        try restoreMissingIndexes(on: connection)
    }

    /// A store for a migration stage: it reads and writes through `connection`, inside the
    /// transaction the migration has open, with the file laid out as `stored` says.
    init(migrating connection: SQLiteConnection, model: ObjectModel, stored: StoredSchema) {
        path = connection.path
        self.model = model
        self.connection = connection
        damage = connection.damage ?? StoreDamage()
        schema = SQLiteSchema(model: model, stored: stored)
        readers = SQLiteReadPool(pinnedTo: connection)
        recordsHistory = false
    }

    deinit {
        readers.closeIdleConnections()  // before the writer, so that it closes the file last
    }

    // MARK: Keys

    /// Smallest and largest number of keys taken from the file at once. Blocks grow while a
    /// container keeps inserting, so that a bulk insert costs a handful of committed
    /// transactions instead of one per 256 objects; keys left unused when the store closes are
    /// simply skipped.
    private static let keyBlockRange = 256...16_384

    func allocatePrimaryKeys(root: EntityDescription, count: Int) throws(ObjectGraphError) -> ClosedRange<Int64> {
        let count = Int64(max(count, 1))
        defer { sqlLog.deliverPending() }
        lock.lock()
        defer { lock.unlock() }
        do throws(ObjectGraphError) {
            return try allocateKeysLocked(root: root, count: count)
        } catch {
            damage.note(error)
            throw error
        }
    }

    /// ``allocatePrimaryKeys(root:count:)`` with the lock held.
    private func allocateKeysLocked(root: EntityDescription, count: Int64) throws(ObjectGraphError) -> ClosedRange<Int64> {
        let rootName = root.rootName
        if let reserved = reservedKeys[rootName], Int64(reserved.count) >= count {
            return takeKeys(count, from: reserved, root: rootName)
        }
        let blockSize = max(Int64(keyBlockSizes[rootName] ?? Self.keyBlockRange.lowerBound), count)
        keyBlockSizes[rootName] = min(Int(blockSize) * 2, Self.keyBlockRange.upperBound)
        let statement = try connection.statement("UPDATE \(SQLiteSchema.keysTable) SET next = next + ?1 WHERE root = ?2 RETURNING next")
        try damage.check()
        let next = try writeTransactionWithLockHeld { () throws(ObjectGraphError) -> Int64 in
            defer { statement.reset() }
            try statement.bind(blockSize, at: 1)
            try statement.bind(rootName, at: 2)
            guard try statement.step() else {
                throw .corruptStore(path: path, message: "the keys table has no row for \(rootName)")
            }
            let next = statement.int64(at: 0)
            // A damaged row can hold any number; keys start at 1 and the block must fit.
            guard next > blockSize else {
                throw .corruptStore(path: path, message: "the keys table holds \(next) as the next key of \(rootName)")
            }
            statement.reset()
            try noteWriteWithoutHistory(on: connection)
            return next
        }
        return takeKeys(count, from: (next - blockSize)...(next - 1), root: rootName)
    }

    /// The first `count` keys of `range`; the rest stays reserved for the next call.
    private func takeKeys(_ count: Int64, from range: ClosedRange<Int64>, root: String) -> ClosedRange<Int64> {
        let keys = range.lowerBound...(range.lowerBound + count - 1)
        reservedKeys[root] = keys.upperBound < range.upperBound ? (keys.upperBound + 1)...range.upperBound : nil
        return keys
    }

    // MARK: Reading

    func rows(of entities: [EntityDescription]) throws(ObjectGraphError) -> [StoredRow] {
        try withReadConnection(inOneTransaction: entities.count > 1) { connection throws(ObjectGraphError) -> [StoredRow] in
            var rows: [StoredRow] = []
            for entity in entities {
                let mapping = try mapping(for: entity)
                let statement = try connection.statement(mapping.selectAll)
                defer { statement.reset() }
                while try statement.step() {
                    rows.append(try readRow(statement, mapping))
                }
            }
            return rows
        }
    }

    func row(for id: ObjectID) throws(ObjectGraphError) -> StoredRow? {
        try withReadConnection { connection throws(ObjectGraphError) -> StoredRow? in
            try storedRow(for: id, mapping: mapping(for: id.entity), on: connection)
        }
    }

    func targets(of id: ObjectID, relationship: PropertyDescription) throws(ObjectGraphError) -> [ObjectID] {
        try withReadConnection { connection throws(ObjectGraphError) -> [ObjectID] in
            try storedTargets(of: id, slot: relationship.index, mapping: mapping(for: id.entity), on: connection)
        }
    }

    // MARK: Helpers (on a reader, or on the writer with the lock held)

    func mapping(for entity: EntityDescription) throws(ObjectGraphError) -> EntityMapping {
        guard let mapping = schema.mappings[entity] else { throw .unknownEntity(entity.name) }
        return mapping
    }

    /// The row with `id`'s key, to-many slots `.unloaded`.
    func storedRow(for id: ObjectID, mapping: EntityMapping, on connection: SQLiteConnection) throws(ObjectGraphError) -> StoredRow? {
        let statement = try connection.statement(mapping.selectOne)
        defer { statement.reset() }
        try statement.bind(id.primaryKey, at: 1)
        return try statement.step() ? readRow(statement, mapping) : nil
    }

    /// The targets of the to-many relationship at `slot`, in order for an ordered one; empty
    /// for any other slot.
    func storedTargets(of id: ObjectID, slot: Int, mapping: EntityMapping, on connection: SQLiteConnection) throws(ObjectGraphError) -> [ObjectID] {
        if mapping.orders[slot] != nil { return try storedOrder(of: id, slot: slot, mapping: mapping, on: connection).map(\.id) }
        let select: String
        switch mapping.toMany[slot] {
        case .inverseForeignKey(let inverseSelect, _, _, _)?: select = inverseSelect
        case .joinTable(let join)?: select = join.select
        case nil: return []
        }
        let statement = try connection.statement(select)
        defer { statement.reset() }
        try statement.bind(id.primaryKey, at: 1)
        var targets: [ObjectID] = []
        while try statement.step() {
            targets.append(ObjectID(entity: try entity(named: statement.string(at: 1)), primaryKey: statement.int64(at: 0)))
        }
        return targets
    }

    /// The to-many relationship at `slot` as a value: ordered or a set, as the model declares it.
    func storedValue(of id: ObjectID, slot: Int, mapping: EntityMapping, on connection: SQLiteConnection) throws(ObjectGraphError) -> PropertyValue {
        .toMany(try storedTargets(of: id, slot: slot, mapping: mapping, on: connection), isOrdered: mapping.orders[slot] != nil)
    }

    /// Decodes the current row of a `selectAll`/`selectOne` statement.
    func readRow(_ statement: SQLiteStatement, _ mapping: EntityMapping) throws(ObjectGraphError) -> StoredRow {
        var slots: [PropertyValue] = []
        slots.reserveCapacity(mapping.readers.count)
        for reader in mapping.readers {
            switch reader {
            case let .attribute(type, column):
                slots.append(try statement.attribute(type, at: column))
            case let .checkedAttribute(type, column, known, failure):
                let value = try statement.attribute(type, at: column)
                if value != .null, known?.contains(value) != true, let reason = failure(value) {
                    throw unreadable(value, slot: slots.count, reason: reason, mapping: mapping, key: statement.int64(at: 0))
                }
                slots.append(value)
            case let .toOne(destination, column, entityColumn):
                guard !statement.isNull(at: column) else {
                    slots.append(.null)
                    continue
                }
                // A target that no longer exists has no entity to join; keep the declared one.
                var target = destination
                if let entityColumn, !statement.isNull(at: entityColumn) {
                    target = try entity(named: statement.string(at: entityColumn))
                }
                slots.append(.object(ObjectID(entity: target, primaryKey: statement.int64(at: column))))
            case .toMany:
                slots.append(.unloaded)
            }
        }
        decodedRowCount.add(1, ordering: .relaxed)
        return StoredRow(id: ObjectID(entity: mapping.entity, primaryKey: statement.int64(at: 0)), version: statement.int64(at: 1), slots: slots)
    }

    /// The error for a stored value that the attribute at `slot` cannot read.
    private func unreadable(_ value: PropertyValue, slot: Int, reason: String, mapping: EntityMapping, key: Int64) -> ObjectGraphError {
        let property = mapping.entity.properties[slot]
        return .undecodableValues(path: path, values: [UndecodableValue(
            entity: mapping.entity.name, property: property.name, objectID: ObjectID(entity: mapping.entity, primaryKey: key),
            storedValue: value.storedText(of: property), type: property.valueInfo?.typeName ?? "\(property)", reason: reason)])
    }

    func entity(named name: String) throws(ObjectGraphError) -> EntityDescription {
        guard let entity = schema.entity(rowName: name) else {
            throw .corruptStore(path: path, message: "a row names the entity '\(name)', which is not in the model")
        }
        return entity
    }

    /// Runs `body` with a reader that nothing else uses meanwhile, beside any save in progress:
    /// every fetch reads through here. A `body` of several statements that must see one
    /// snapshot passes `inOneTransaction: true` (or opens its own read transaction).
    func withReadConnection<Result>(
        inOneTransaction: Bool = false, _ body: (SQLiteConnection) throws(ObjectGraphError) -> Result
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
