import Foundation
import Synchronization

/// A store whose rows live in SQL tables, laid out as ``SQLSchema`` describes: SQLite's
/// (``SQLiteStore``) and PostgreSQL's (``PostgreSQLStore``). Everything a store does with its
/// rows — reading, saving with conflicts and merge policies, keeping references valid, ordered
/// relationships, batches, translated queries — is written once, in this protocol's
/// extensions, over a ``SQLConnection``; a store supplies its connections, its transactions and
/// its keys.
protocol SQLStore: PersistentStore, StoreQueryEngine {
    associatedtype Connection: SQLConnection

    var model: ObjectModel { get }
    /// The layout of the model in the store's tables, and its statements.
    var schema: SQLSchema { get }
    /// Where the connections report their statements (see ``PersistentContainer/sqlLogHandler``).
    var sqlLog: SQLLog { get }
    /// How many rows have been decoded into ``StoredRow``s (see ``DecodedRowCounter``).
    var decodedRowCount: DecodedRowCounter { get }

    /// Runs `body` with a connection that nothing else uses meanwhile, beside any save in
    /// progress: every fetch reads through here. A `body` of several statements that must see
    /// one snapshot passes `inOneTransaction: true`.
    func withReadConnection<Result>(
        inOneTransaction: Bool, _ body: (Connection) throws(ObjectGraphError) -> Result
    ) throws(ObjectGraphError) -> Result
    /// Runs `body` on the writer, in a write transaction that no other writer of the store
    /// interleaves with, committed if `body` returns and rolled back if it throws.
    func withWriteTransaction<Result>(_ body: (Connection) throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result
    /// Runs `body` as ``withWriteTransaction(_:)`` does and writes, in the same transaction and
    /// last, the history entry `body` returns (see ``PendingHistory``); returns `body`'s result
    /// and the entry's token, `nil` when no history was written.
    func withHistoryTransaction<Result>(
        _ body: (Connection) throws(ObjectGraphError) -> (Result, PendingHistory?)
    ) throws(ObjectGraphError) -> (Result, Int64?)

    /// Whether saves and batches write persistent history (off for a migration's store).
    var recordsHistory: Bool { get }
    /// Whether the store has its history tables yet (a SQLite file gets them with its first write).
    var hasHistoryTables: Bool { get }
    /// Creates the history tables if the store lacks them, in the write transaction open on
    /// `connection`; every write of the store's own calls it first.
    func prepareHistoryTables(on connection: Connection) throws(ObjectGraphError)

    /// Writes a save's inserted rows and their join-table pairs, noting each row that a
    /// uniqueness constraint refuses (see ``SQLStore/writeInsertsRowByRow(_:conflicts:connection:)``).
    func writeInserts(_ rows: [StoredRow], conflicts: inout [UniquenessConflict], connection: Connection) throws(ObjectGraphError)
    /// The statement `query` runs as, and the database's plan for it.
    func explain(_ query: StoreQuery) throws(ObjectGraphError) -> (sql: String, plan: [String])
}

/// The history entry of a write transaction, written last in it (see
/// ``SQLStore/withHistoryTransaction(_:)``).
struct PendingHistory {
    let record: HistoryRecord
    let author: String
}

/// How many rows a store has decoded into ``StoredRow``s: what a fetch materialises, counted
/// by tests that check a selective fetch reads only what it returns.
final class DecodedRowCounter: Sendable {
    private let count = Atomic<Int>(0)

    func add(_ value: Int) { count.add(value, ordering: .relaxed) }

    var value: Int { count.load(ordering: .relaxed) }
}

extension SQLStore {
    func withReadConnection<Result>(_ body: (Connection) throws(ObjectGraphError) -> Result) throws(ObjectGraphError) -> Result {
        try withReadConnection(inOneTransaction: false, body)
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

    // MARK: Helpers (on a reader, or on the writer in its transaction)

    func mapping(for entity: EntityDescription) throws(ObjectGraphError) -> EntityMapping {
        guard let mapping = schema.mappings[entity] else { throw .unknownEntity(entity.name) }
        return mapping
    }

    /// The row with `id`'s key, to-many slots `.unloaded`.
    func storedRow(for id: ObjectID, mapping: EntityMapping, on connection: Connection) throws(ObjectGraphError) -> StoredRow? {
        let statement = try connection.statement(mapping.selectOne)
        defer { statement.reset() }
        try statement.bind(id.primaryKey, at: 1)
        return try statement.step() ? readRow(statement, mapping) : nil
    }

    /// The targets of the to-many relationship at `slot`, in order for an ordered one; empty
    /// for any other slot.
    func storedTargets(of id: ObjectID, slot: Int, mapping: EntityMapping, on connection: Connection) throws(ObjectGraphError) -> [ObjectID] {
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
    func storedValue(of id: ObjectID, slot: Int, mapping: EntityMapping, on connection: Connection) throws(ObjectGraphError) -> PropertyValue {
        .toMany(try storedTargets(of: id, slot: slot, mapping: mapping, on: connection), isOrdered: mapping.orders[slot] != nil)
    }

    /// Decodes the current row of a `selectAll`/`selectOne` statement.
    func readRow(_ statement: some SQLStatement, _ mapping: EntityMapping) throws(ObjectGraphError) -> StoredRow {
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
        decodedRowCount.add(1)
        return StoredRow(id: ObjectID(entity: mapping.entity, primaryKey: statement.int64(at: 0)), version: statement.int64(at: 1), slots: slots)
    }

    /// The error for a stored value that the attribute at `slot` cannot read.
    func unreadable(_ value: PropertyValue, slot: Int, reason: String, mapping: EntityMapping, key: Int64) -> ObjectGraphError {
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
}
