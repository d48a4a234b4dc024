/// One entity's place in a store's schema: which slot reads which result column, and the
/// statements that select, insert, update and delete its rows, built once per model in the
/// store's ``SQLDialect``.
///
/// A class: a save looks a mapping up for each row it writes, and handing out one reference
/// costs one retain where a copy of this many fields costs a retain for each.
final class EntityMapping {
    /// How a slot is read from a row of ``selectAll`` or ``selectOne``.
    enum SlotReader {
        case attribute(AttributeType, column: Int32)
        /// An attribute whose type may not read every stored value (an enum that lost a case):
        /// a value outside `known` (the cases' stored values, when listed) is checked, `failure`
        /// says why it cannot be read, and the read fails.
        case checkedAttribute(AttributeType, column: Int32, known: Set<PropertyValue>?, failure: @Sendable (PropertyValue) -> String?)
        /// The target's key; when the destination has subentities, `entityColumn` names the
        /// target's concrete entity (from a join on the destination's table).
        case toOne(destination: EntityDescription, column: Int32, entityColumn: Int32?)
        /// Not stored in the row; loaded with ``SQLiteStore/targets(of:relationship:)``.
        case toMany
    }

    let entity: EntityDescription
    /// The slots stored in columns, in the order ``insert`` and ``update`` bind them.
    let columnSlots: [Int]
    /// One reader per slot, in slot order.
    let readers: [SlotReader]
    /// `pk, version`, then the slots' columns; every row of the entity.
    let selectAll: String
    /// ``selectAll`` without its `WHERE`: the select list and joins, the table aliased `r`.
    let selectFromTable: String
    /// Keeps the hierarchy's table to this entity's rows (`r.entity = …`); `nil` when every row
    /// is of this entity.
    let entityFilter: String?
    /// The (unquoted) column of each slot stored in a column.
    let columnBySlot: [Int: String]
    /// The same for the row whose key is bound to the first parameter.
    let selectOne: String
    /// `?1` key, then ``columnSlots`` from `?2`; the version is 1.
    let insert: String
    /// `?1` version, then ``columnSlots`` from `?2`, then the key.
    let update: String
    /// ``update`` up to its first assignment (`UPDATE … SET version = ?1`), and each column's
    /// quoted name in ``columnSlots`` order: what ``update(writing:)`` builds from.
    private let updateHead: String
    private let columnNames: [String]
    private let dialect: SQLDialect
    /// `?1` key.
    let delete: String
    /// How each to-many slot is stored.
    let toMany: [Int: ToManyStorage]
    /// The to-many slots stored in join tables, in slot order (the ones a save writes).
    let joinTables: [(slot: Int, access: JoinTableAccess)]
    /// The ordered to-many slots' order tables.
    let orders: [Int: OrderTableAccess]
    /// One lookup per uniqueness constraint covering the entity, in the entity's order.
    let uniqueLookups: [UniqueLookup]
    /// The slots of every uniqueness constraint covering the entity.
    let uniqueSlots: Set<Int>
    /// Sets the columns of ``uniqueSlots`` to NULL in the row whose key is `?1`; `nil` without
    /// constraints. A save clears an updated row's unique values first, so that objects may
    /// trade values (see ``SQLiteStore/save(_:policy:)``).
    let clearUnique: String?

    /// Finds the row that holds given values under one uniqueness constraint: the constraint's
    /// values (as ``UniqueKey`` has them) bound from `?1`, then the key of the object to leave
    /// out; the row's `pk, entity`. It uses the constraint's index.
    struct UniqueLookup {
        let constraint: IndexDescription
        let select: String
    }

    init(entity: EntityDescription, model: ObjectModel, lookup: SchemaLookup, dialect: SQLDialect = .sqlite) {
        let sql = SQLBuilder(dialect)
        let quoted = sql.name
        let tableName = lookup.entity(named: entity.name)!.table
        let table = quoted(tableName)
        func column(_ property: PropertyDescription) -> String {
            lookup.property(property.name, of: entity.name)!.property.column!
        }
        var selected = ["r.pk", "r.version"]
        var joins: [String] = []
        var readers: [SlotReader] = []
        var columnSlots: [Int] = []
        var columnNames: [String] = []
        var columnBySlot: [Int: String] = [:]
        var toMany: [Int: ToManyStorage] = [:]
        var orders: [Int: OrderTableAccess] = [:]

        for property in entity.properties {
            if let relationship = property.relationship, relationship.isToMany {
                readers.append(.toMany)
                let stored = lookup.property(property.name, of: entity.name)!.property
                let storage = ToManyStorage(stored, lookup: lookup, dialect: dialect)
                toMany[property.index] = storage
                if let table = stored.orderTable { orders[property.index] = OrderTableAccess(table: table, members: storage, dialect: dialect) }
                continue
            }
            let name = column(property)
            let column = Int32(selected.count)
            selected.append("r.\(quoted(name))")
            columnSlots.append(property.index)
            columnNames.append(quoted(name))
            columnBySlot[property.index] = name
            switch property.kind {
            case .attribute(let type, _):
                if let info = property.valueInfo, info.checksRows {
                    readers.append(.checkedAttribute(type, column: column, known: info.storedCaseValues, failure: info.failure))
                } else {
                    readers.append(.attribute(type, column: column))
                }
            case .relationship(let relationship):
                let destination = model.entity(named: relationship.destinationName)!
                var entityColumn: Int32?
                if destination.selfAndSubentityNames.count > 1 {
                    let alias = "j\(property.index)"
                    // While a migration runs, the table may hold rows the model does not know:
                    // a link to one reads as a link to an object that is gone.
                    let known = lookup.entity(named: destination.rootName)!.holdsOtherRows
                        ? SchemaDefinitions.scopeRowNames(of: destination.name, in: lookup).map { " AND " + sql.rowFilter($0, alias: alias) } ?? "" : ""
                    joins.append("LEFT JOIN \(quoted(lookup.entity(named: destination.name)!.table)) AS \(alias) ON \(alias).pk = r.\(quoted(name))\(known)")
                    entityColumn = Int32(selected.count)
                    selected.append("\(alias).entity")
                }
                readers.append(.toOne(destination: destination, column: column, entityColumn: entityColumn))
            }
        }

        // A hierarchy of one entity needs no filter: every row is that entity (unless a
        // migration is running, see `StoredEntity.holdsOtherRows`).
        let root = model.entity(named: entity.rootName)!
        let rowName = sql.literal(lookup.rowName(of: entity.name))
        let filter = root.selfAndSubentityNames.count > 1 || lookup.entity(named: root.name)!.holdsOtherRows ? "r.entity = \(rowName)" : nil
        let select = "SELECT \(selected.joined(separator: ", ")) FROM \(table) AS r" + joins.map { " " + $0 }.joined()
        self.entity = entity
        self.columnSlots = columnSlots
        self.readers = readers
        self.toMany = toMany
        self.orders = orders
        joinTables = toMany.keys.sorted().compactMap { slot in
            if case .joinTable(let access)? = toMany[slot] { (slot, access) } else { nil }
        }
        selectAll = select + (filter.map { " WHERE \($0)" } ?? "")
        selectFromTable = select
        entityFilter = filter
        self.columnBySlot = columnBySlot
        selectOne = select + " WHERE r.pk = \(sql.parameter(1))" + (filter.map { " AND \($0)" } ?? "")
        let placeholders = sql.parameters(from: 2, count: columnSlots.count)
        insert = sql.insert(into: tableName, columns: ["pk", "entity", "version"] + columnNames, values: [sql.parameter(1), rowName, "1"] + placeholders)
        let assignments = ["version = \(sql.parameter(1))"] + zip(columnNames, placeholders).map { "\($0) = \($1)" }
        update = sql.update(tableName, set: assignments, where: "pk = \(sql.parameter(columnSlots.count + 2))")
        updateHead = sql.update(tableName, set: [assignments[0]], where: nil)
        self.columnNames = columnNames
        self.dialect = dialect
        delete = sql.delete(from: tableName, where: "pk = \(sql.parameter(1))")

        uniqueLookups = entity.uniquenessConstraints.map { Self.uniqueLookup($0, of: entity, table: table, lookup: lookup, dialect: dialect) }
        uniqueSlots = Set(entity.uniquenessConstraints.flatMap(\.slots))
        clearUnique = uniqueSlots.isEmpty ? nil : sql.update(
            tableName, set: uniqueSlots.sorted().map { "\(quoted(column(entity.properties[$0]))) = NULL" }, where: "pk = \(sql.parameter(1))")
    }
    /// ``update`` narrowed to the columns at `positions` (ascending indices into
    /// ``columnSlots``): `?1` version, then those columns from `?2`, then the key. SQLite
    /// rewrites an index only when the statement assigns one of its columns, so a save that
    /// assigns only what changed leaves the other indexes' pages, and the log, alone.
    func update(writing positions: [Int]) -> String {
        guard positions.count < columnSlots.count else { return update }
        var sql = updateHead
        for (offset, position) in positions.enumerated() {
            sql += ", \(columnNames[position]) = \(dialect.placeholder(offset + 2))"
        }
        return sql + " WHERE pk = \(dialect.placeholder(positions.count + 2))"
    }

    /// The lookup of the row holding given values under `constraint`. (A function of its own
    /// rather than a closure in ``init(entity:model:lookup:)``: inlined there, Swift 6.3.1's
    /// optimiser crashed on it — "Found outside of lifetime use" — once quoting changed.)
    private static func uniqueLookup(
        _ constraint: IndexDescription, of entity: EntityDescription, table: String, lookup: SchemaLookup, dialect: SQLDialect
    ) -> UniqueLookup {
        var conditions = constraint.slots.enumerated().map { position, slot in
            let property = entity.properties[slot]
            let column = lookup.property(property.name, of: entity.name)!.property.column!
            let term = SchemaDefinitions.indexTerm(column: column, type: property.attributeType, unique: true, dialect: dialect)
            let value = SchemaDefinitions.indexTerm(value: dialect.placeholder(position + 1), type: property.attributeType, dialect: dialect)
            return "\(term) = \(value)"
        }
        if let scope = SchemaDefinitions.scopeFilter(of: constraint.entityName, in: lookup, dialect: dialect) { conditions.append(scope) }
        conditions.append("pk <> \(dialect.placeholder(constraint.slots.count + 1))")
        return UniqueLookup(constraint: constraint, select: "SELECT pk, entity FROM \(table) WHERE \(conditions.joined(separator: " AND ")) LIMIT 1")
    }
}

/// Where a to-many relationship's targets live. Each statement lists targets as `(pk, entity)`
/// rows, so that the store can name their concrete entities.
enum ToManyStorage {
    /// In the destination's to-one inverse: `select` (owner key `?1`) reads the rows of `table`
    /// whose `column` holds the owner's key. Nothing to write: the inverse's row carries it.
    case inverseForeignKey(select: String, table: String, column: String, filter: String)
    /// In a join table shared with a to-many inverse.
    case joinTable(JoinTableAccess)

    init(_ property: StoredProperty, lookup: SchemaLookup, dialect: SQLDialect = .sqlite) {
        let sql = SQLBuilder(dialect)
        switch lookup.toManyLayout(of: property)! {
        case let .inverseColumn(table, column, destination):
            // Other entities of the destination's hierarchy may share the column; keep to ours.
            let filter = SchemaDefinitions.scopeRowNames(of: destination, in: lookup).map { " AND " + sql.rowFilter($0) } ?? ""
            self = .inverseForeignKey(
                select: "SELECT pk, entity FROM \(sql.name(table)) WHERE \(sql.name(column)) = \(sql.parameter(1))\(filter)",
                table: table, column: column, filter: filter)
        case let .joinTable(table, ownColumn, otherColumn):
            let destination = property.destination!
            // See `StoredEntity.holdsOtherRows`.
            let known = lookup.entity(named: lookup.root(of: destination))!.holdsOtherRows
                ? SchemaDefinitions.scopeRowNames(of: destination, in: lookup).map { " AND " + sql.rowFilter($0, alias: "t") } : nil
            self = .joinTable(JoinTableAccess(
                table: table, ownerColumn: ownColumn, targetColumn: otherColumn,
                destinationTable: lookup.entity(named: destination)!.table, destinationFilter: known ?? "", dialect: dialect))
        }
    }
}

/// The statements of one relationship's side of a join table.
///
/// A new file names the table after the relationship (`Entity.relationship`, declaring entity
/// first), or after both sides (`Content.tags-Tag.contents`, in name order) when the inverse is
/// to-many; `owner` holds the key of the first side's object, `target` the second's, and the
/// second side reads the same rows the other way round (see ``SchemaNaming/joinTable(own:other:)``).
/// The stored schema records, for each side, the table and its column.
struct JoinTableAccess {
    let table: String
    /// The column holding this side's (the owner's) key, and the one holding the target's.
    let ownerColumn: String
    let targetColumn: String
    /// The destination's table and the condition keeping it to the destination's rows.
    let destinationTable: String
    let destinationFilter: String
    /// Targets of the owner `?1`, joined with the destination's table to drop deleted ones.
    let select: String
    /// Adds the pair owner `?1`, target `?2` (idempotent: both sides add it).
    let insert: String
    /// Removes the pair owner `?1`, target `?2`.
    let delete: String
    /// Removes every pair of owner `?1`, when the owner is deleted.
    let deleteOwner: String

    init(table: String, ownerColumn: String, targetColumn: String, destinationTable: String, destinationFilter: String, dialect: SQLDialect = .sqlite) {
        let sql = SQLBuilder(dialect)
        let owner = sql.parameter(1)
        let target = sql.parameter(2)
        self.table = table
        self.ownerColumn = ownerColumn
        self.targetColumn = targetColumn
        self.destinationTable = destinationTable
        self.destinationFilter = destinationFilter
        select = "SELECT t.pk, t.entity FROM \(sql.name(table)) AS j JOIN \(sql.name(destinationTable)) AS t ON t.pk = j.\(targetColumn) WHERE j.\(ownerColumn) = \(owner)\(destinationFilter)"
        insert = sql.insertIgnoringDuplicates(into: table, columns: [ownerColumn, targetColumn], values: [owner, target])
        delete = sql.delete(from: table, where: "\(ownerColumn) = \(owner) AND \(targetColumn) = \(target)")
        deleteOwner = sql.delete(from: table, where: "\(ownerColumn) = \(owner)")
    }
}

/// The statements of an ordered to-many's order table: one row `(owner, target, position)` per
/// member. Membership stays where a set relationship keeps it (the inverse's key or the join
/// table): the order table only ranks the members, so that a row there for an object that left
/// is never read, and a member without a row (after a migration from a set) comes last, by key.
struct OrderTableAccess {
    let table: String
    /// The members of owner `?1` in order: `pk, entity, position` (position NULL for a member
    /// without a row).
    let select: String
    /// Sets the position `?3` of target `?2` in owner `?1`'s list.
    let upsert: String
    /// Removes target `?2` from owner `?1`'s list.
    let delete: String
    /// Removes owner `?1`'s list, when the owner is deleted.
    let deleteOwner: String

    init(table: String, members: ToManyStorage, dialect: SQLDialect = .sqlite) {
        let sql = SQLBuilder(dialect)
        let owner = sql.parameter(1)
        let ranked = "LEFT JOIN \(sql.name(table)) AS o ON o.owner = \(owner) AND o.target = t.pk"
        let order = "ORDER BY o.position IS NULL, o.position, t.pk"
        switch members {
        case let .inverseForeignKey(_, memberTable, column, filter):
            select = "SELECT t.pk, t.entity, o.position FROM \(sql.name(memberTable)) AS t \(ranked) WHERE t.\(sql.name(column)) = \(owner)\(filter) \(order)"  // only `t` has an `entity` column
        case .joinTable(let join):
            select = "SELECT t.pk, t.entity, o.position FROM \(sql.name(join.table)) AS j JOIN \(sql.name(join.destinationTable)) AS t ON t.pk = j.\(join.targetColumn) \(ranked) WHERE j.\(join.ownerColumn) = \(owner)\(join.destinationFilter) \(order)"
        }
        self.table = table
        upsert = sql.upsert(into: table, columns: ["owner", "target", "position"], values: sql.parameters(from: 1, count: 3),
                            conflictColumns: ["owner", "target"], updating: ["position"])
        delete = sql.delete(from: table, where: "owner = \(owner) AND target = \(sql.parameter(2))")
        deleteOwner = sql.delete(from: table, where: "owner = \(owner)")
    }
}
