/// One entity's place in the SQLite schema: which slot reads which result column, and the
/// statements that select, insert, update and delete its rows, built once per model.
struct EntityMapping {
    /// How a slot is read from a row of ``selectAll`` or ``selectOne``.
    enum SlotReader {
        case attribute(AttributeType, column: Int32)
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
    /// The same for the row whose key is bound to `?1`.
    let selectOne: String
    /// `?1` key, then ``columnSlots`` from `?2`; the version is 1.
    let insert: String
    /// `?1` version, then ``columnSlots`` from `?2`, then the key.
    let update: String
    /// `?1` key.
    let delete: String
    /// How each to-many slot is stored.
    let toMany: [Int: ToManyStorage]
    /// The to-many slots stored in join tables, in slot order (the ones a save writes).
    let joinTables: [(slot: Int, access: JoinTableAccess)]

    init(entity: EntityDescription, model: ObjectModel, columnsByHierarchy: [String: HierarchyColumns]) {
        let quoted = SQLiteSchema.quoted
        let table = quoted(entity.rootName)
        let columns = columnsByHierarchy[entity.rootName]!
        var selected = ["r.pk", "r.version"]
        var joins: [String] = []
        var readers: [SlotReader] = []
        var columnSlots: [Int] = []
        var columnNames: [String] = []
        var toMany: [Int: ToManyStorage] = [:]

        for property in entity.properties {
            if let relationship = property.relationship, relationship.isToMany {
                readers.append(.toMany)
                toMany[property.index] = ToManyStorage(property, of: entity, model: model, columnsByHierarchy: columnsByHierarchy)
                continue
            }
            let name = columns.name(of: property, in: entity, model: model)
            let column = Int32(selected.count)
            selected.append("r.\(quoted(name))")
            columnSlots.append(property.index)
            columnNames.append(quoted(name))
            switch property.kind {
            case .attribute(let type, _):
                readers.append(.attribute(type, column: column))
            case .relationship(let relationship):
                let destination = model.entity(named: relationship.destinationName)!
                var entityColumn: Int32?
                if destination.selfAndSubentityNames.count > 1 {
                    let alias = "j\(property.index)"
                    joins.append("LEFT JOIN \(quoted(destination.rootName)) AS \(alias) ON \(alias).pk = r.\(quoted(name))")
                    entityColumn = Int32(selected.count)
                    selected.append("\(alias).entity")
                }
                readers.append(.toOne(destination: destination, column: column, entityColumn: entityColumn))
            }
        }

        // A hierarchy of one entity needs no filter: every row is that entity.
        let root = model.entity(named: entity.rootName)!
        let filter = root.selfAndSubentityNames.count > 1 ? "r.entity = \(SQLiteSchema.literal(entity.name))" : nil
        let select = "SELECT \(selected.joined(separator: ", ")) FROM \(table) AS r" + joins.map { " " + $0 }.joined()
        self.entity = entity
        self.columnSlots = columnSlots
        self.readers = readers
        self.toMany = toMany
        joinTables = toMany.keys.sorted().compactMap { slot in
            if case .joinTable(let access)? = toMany[slot] { (slot, access) } else { nil }
        }
        selectAll = select + (filter.map { " WHERE \($0)" } ?? "")
        selectOne = select + " WHERE r.pk = ?1" + (filter.map { " AND \($0)" } ?? "")
        let placeholders = columnSlots.indices.map { "?\($0 + 2)" }
        insert = "INSERT INTO \(table) (pk, entity, version\(columnNames.map { ", " + $0 }.joined())) VALUES (?1, \(SQLiteSchema.literal(entity.name)), 1\(placeholders.map { ", " + $0 }.joined()))"
        let assignments = ["version = ?1"] + zip(columnNames, placeholders).map { "\($0) = \($1)" }
        update = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE pk = ?\(columnSlots.count + 2)"
        delete = "DELETE FROM \(table) WHERE pk = ?1"
    }
}

/// Where a to-many relationship's targets live. Each statement lists targets as `(pk, entity)`
/// rows, so that the store can name their concrete entities.
enum ToManyStorage {
    /// In the destination's to-one inverse: `select` (owner key `?1`) reads the rows of `table`
    /// whose `column` holds the owner's key. Nothing to write: the inverse's row carries it.
    case inverseForeignKey(select: String, table: String, column: String)
    /// In a join table shared with a to-many inverse.
    case joinTable(JoinTableAccess)

    init(_ property: PropertyDescription, of entity: EntityDescription, model: ObjectModel, columnsByHierarchy: [String: HierarchyColumns]) {
        let quoted = SQLiteSchema.quoted
        let relationship = property.relationship!
        let destination = model.entity(named: relationship.destinationName)!
        let destinationTable = quoted(destination.rootName)
        if let inverseIndex = relationship.inverseIndex, !relationship.inverseIsToMany {
            let inverse = destination.properties[inverseIndex]
            let column = columnsByHierarchy[destination.rootName]!.name(of: inverse, in: destination, model: model)
            // Other entities of the destination's hierarchy may share the column; keep to ours.
            let destinationRoot = model.entity(named: destination.rootName)!
            let filter = destination.selfAndSubentityNames.count < destinationRoot.selfAndSubentityNames.count
                ? " AND entity IN (\(destination.selfAndSubentityNames.sorted().map(SQLiteSchema.literal).joined(separator: ", ")))"
                : ""
            self = .inverseForeignKey(
                select: "SELECT pk, entity FROM \(destinationTable) WHERE \(quoted(column)) = ?1\(filter)",
                table: destination.rootName, column: column)
        } else {
            self = .joinTable(JoinTableAccess(property, of: entity, destination: destination, model: model))
        }
    }
}

/// The statements of one relationship's side of a join table.
///
/// The table is named after the relationship (`Entity.relationship`, declaring entity first), or
/// after both sides (`Content.tags-Tag.contents`, in name order) when the inverse is to-many.
/// `owner` holds the key of the first side's object, `target` the second's; the second side
/// reads the same rows the other way round.
struct JoinTableAccess {
    let table: String
    /// Targets of the owner `?1`, joined with the destination's table to drop deleted ones.
    let select: String
    /// Adds the pair owner `?1`, target `?2` (idempotent: both sides add it).
    let insert: String
    /// Removes the pair owner `?1`, target `?2`.
    let delete: String
    /// Removes every pair of owner `?1`, when the owner is deleted.
    let deleteOwner: String
    /// The columns holding this side's objects and the other side's.
    let ownerColumn: String
    let targetColumn: String

    init(_ property: PropertyDescription, of entity: EntityDescription, destination: EntityDescription, model: ObjectModel) {
        let quoted = SQLiteSchema.quoted
        let own = SQLiteSchema.declaringEntity(of: property.index, in: entity, model: model).name + "." + property.name
        var table = own
        var isFirstSide = true
        if let inverseIndex = property.relationship?.inverseIndex {
            let other = SQLiteSchema.declaringEntity(of: inverseIndex, in: destination, model: model).name
                + "." + destination.properties[inverseIndex].name
            if own < other {
                table = own + "-" + other
            } else if other < own {
                table = other + "-" + own
                isFirstSide = false
            }
        }
        let (ownerColumn, targetColumn) = isFirstSide ? ("owner", "target") : ("target", "owner")
        self.ownerColumn = ownerColumn
        self.targetColumn = targetColumn
        let name = quoted(table)
        self.table = table
        select = "SELECT t.pk, t.entity FROM \(name) AS j JOIN \(quoted(destination.rootName)) AS t ON t.pk = j.\(targetColumn) WHERE j.\(ownerColumn) = ?1"
        insert = "INSERT OR IGNORE INTO \(name) (\(ownerColumn), \(targetColumn)) VALUES (?1, ?2)"
        delete = "DELETE FROM \(name) WHERE \(ownerColumn) = ?1 AND \(targetColumn) = ?2"
        deleteOwner = "DELETE FROM \(name) WHERE \(ownerColumn) = ?1"
    }
}
