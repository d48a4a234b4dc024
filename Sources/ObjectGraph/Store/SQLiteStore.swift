import Foundation
import Streams

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
/// Several containers, in one process or several, may open the same file: each has its own
/// connection, SQLite's file locks order their writes, and primary keys come from a table that
/// is updated in write transactions, so no two containers hand out the same key.
final class SQLiteStore: PersistentStore, @unchecked Sendable {
    // `lock` serializes every use of `connection` (its statement cache, its transaction state and
    // the statements' bindings and cursors) and protects `reservedKeys` and `keyBlockSizes`. Each
    // method holds it from its first statement to the last reset, so a save's transaction never
    // interleaves with a fetch from another queue. Nothing called under the lock calls out.
    private let lock = Lock()
    private let connection: SQLiteConnection
    private var reservedKeys: [String: ClosedRange<Int64>] = [:]
    private var keyBlockSizes: [String: Int] = [:]

    let path: String
    let model: ObjectModel
    let schema: SQLiteSchema

    /// Opens the store at `url`, creating the file and its tables if the file is missing or empty.
    ///
    /// - Throws: ``ObjectGraphError/storeUnavailable(path:message:)`` if the file cannot be opened
    ///   or created, ``ObjectGraphError/corruptStore(path:message:)`` if it is not a database or
    ///   is damaged, ``ObjectGraphError/incompatibleStore(path:message:)`` if it was written for
    ///   another model. In all three cases the file is left as it was.
    init(url: URL, model: ObjectModel) throws(ObjectGraphError) {
        path = url.path
        self.model = model
        schema = SQLiteSchema(model: model)
        try SQLiteStoreOpening.checkBeforeOpening(path: path)
        connection = try SQLiteConnection(path: path)
        try SQLiteStoreOpening(connection: connection, schema: schema, model: model).prepareFile()
    }

    // MARK: Keys

    /// Smallest and largest number of keys taken from the file at once. Blocks grow while a
    /// container keeps inserting, so that a bulk insert costs a handful of committed
    /// transactions instead of one per 256 objects; keys left unused when the store closes are
    /// simply skipped.
    private static let keyBlockRange = 256...16_384

    func allocatePrimaryKeys(root: EntityDescription, count: Int) throws(ObjectGraphError) -> ClosedRange<Int64> {
        let count = Int64(max(count, 1))
        lock.lock()
        defer { lock.unlock() }
        let rootName = root.rootName
        if let reserved = reservedKeys[rootName], Int64(reserved.count) >= count {
            return takeKeys(count, from: reserved, root: rootName)
        }
        let blockSize = max(Int64(keyBlockSizes[rootName] ?? Self.keyBlockRange.lowerBound), count)
        keyBlockSizes[rootName] = min(Int(blockSize) * 2, Self.keyBlockRange.upperBound)
        let statement = try connection.statement("UPDATE \(SQLiteSchema.keysTable) SET next = next + ?1 WHERE root = ?2 RETURNING next")
        let next = try connection.writeTransaction { () throws(ObjectGraphError) -> Int64 in
            defer { statement.reset() }
            try statement.bind(blockSize, at: 1)
            try statement.bind(rootName, at: 2)
            guard try statement.step() else {
                throw .corruptStore(path: path, message: "the keys table has no row for \(rootName)")
            }
            return statement.int64(at: 0)
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
        lock.lock()
        defer { lock.unlock() }
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

    func row(for id: ObjectID) throws(ObjectGraphError) -> StoredRow? {
        lock.lock()
        defer { lock.unlock() }
        return try storedRow(for: id, mapping: mapping(for: id.entity))
    }

    func targets(of id: ObjectID, relationship: PropertyDescription) throws(ObjectGraphError) -> Set<ObjectID> {
        lock.lock()
        defer { lock.unlock() }
        return try storedTargets(of: id, slot: relationship.index, mapping: mapping(for: id.entity))
    }

    // MARK: Helpers (called with the lock held)

    func mapping(for entity: EntityDescription) throws(ObjectGraphError) -> EntityMapping {
        guard let mapping = schema.mappings[entity] else { throw .unknownEntity(entity.name) }
        return mapping
    }

    /// The row with `id`'s key, to-many slots `.unloaded`.
    func storedRow(for id: ObjectID, mapping: EntityMapping) throws(ObjectGraphError) -> StoredRow? {
        let statement = try connection.statement(mapping.selectOne)
        defer { statement.reset() }
        try statement.bind(id.primaryKey, at: 1)
        return try statement.step() ? readRow(statement, mapping) : nil
    }

    /// The targets of the to-many relationship at `slot`; empty for any other slot.
    func storedTargets(of id: ObjectID, slot: Int, mapping: EntityMapping) throws(ObjectGraphError) -> Set<ObjectID> {
        let select: String
        switch mapping.toMany[slot] {
        case .inverseForeignKey(let inverseSelect, _, _)?: select = inverseSelect
        case .joinTable(let join)?: select = join.select
        case nil: return []
        }
        let statement = try connection.statement(select)
        defer { statement.reset() }
        try statement.bind(id.primaryKey, at: 1)
        var targets: Set<ObjectID> = []
        while try statement.step() {
            targets.insert(ObjectID(entity: try entity(named: statement.string(at: 1)), primaryKey: statement.int64(at: 0)))
        }
        return targets
    }

    /// Decodes the current row of a `selectAll`/`selectOne` statement.
    private func readRow(_ statement: SQLiteStatement, _ mapping: EntityMapping) throws(ObjectGraphError) -> StoredRow {
        var slots: [PropertyValue] = []
        slots.reserveCapacity(mapping.readers.count)
        for reader in mapping.readers {
            switch reader {
            case let .attribute(type, column):
                slots.append(try statement.attribute(type, at: column))
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
        return StoredRow(id: ObjectID(entity: mapping.entity, primaryKey: statement.int64(at: 0)), version: statement.int64(at: 1), slots: slots)
    }

    private func entity(named name: String) throws(ObjectGraphError) -> EntityDescription {
        guard let entity = model.entity(named: name) else {
            throw .corruptStore(path: path, message: "a row names the entity '\(name)', which is not in the model")
        }
        return entity
    }

    /// Checkpoints and closes the connection; later calls throw ``ObjectGraphError/storeClosed(path:)``.
    func close() {
        lock.withLock { connection.close() }
    }

    /// Runs `body` with the lock held and the connection in a write transaction.
    func withWriteTransaction<Result>(_ body: (SQLiteConnection) throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try connection.writeTransaction { () throws(ObjectGraphError) -> Result in try body(connection) }
    }
}
