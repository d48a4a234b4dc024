import CSQLite

/// Runs ``MigrationStep``s on the writer connection, inside the transaction the migration
/// opened: checks, then `expand`, the stage, `contract`, and the indexes last (so that a stage
/// can remove duplicates before a uniqueness constraint is created).
struct MigrationExecutor<Connection: SQLConnection> {
    let connection: Connection
    /// The SQL the operations and checks are written in.
    var dialect: SQLDialect { connection.dialect }
    /// Drop columns by copying the table, even where SQLite drops them in place (SQLite only).
    let rebuildsTables: Bool
    /// The app's model, to name the objects that hold values a changed type cannot read.
    var model: ObjectModel?

    /// How many values a refused ``ValueCheck`` lists at most.
    static var listedUnreadableValues: Int { 20 }

    func run(_ step: MigrationStep, stage: () throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        for check in step.checks { try run(check) }
        var unreadable: [UndecodableValue] = []
        for check in step.valueChecks { unreadable += try run(check) }
        if !unreadable.isEmpty { throw .undecodableValues(path: connection.path, values: unreadable) }
        try dropIndexes(keeping: step.indexesToKeep)
        for operation in step.expand { try perform(operation) }
        try stage()
        for operation in step.contract { try perform(operation) }
        try alignIndexes(with: SchemaDefinitions(step.target, dialect: dialect).indexes)
    }

    private func run(_ check: DataCheck) throws(ObjectGraphError) {
        guard let value = try connection.text(check.query.sql(in: dialect)) else { return }
        let refusal = check.refusal
        throw .migrationRefused(path: connection.path, changes: [RefusedChange(
            entity: refusal.entity, property: refusal.property, stored: refusal.stored, model: refusal.model,
            reason: refusal.reason.replacingOccurrences(of: "%@", with: value), fix: refusal.fix)])
    }

    /// The stored values `check`'s type cannot read, the first few.
    private func run(_ check: ValueCheck) throws(ObjectGraphError) -> [UndecodableValue] {
        let statement = try connection.prepare(check.sql(in: dialect))
        defer { statement.reset() }
        var found: [UndecodableValue] = []
        let entity = model?.entity(named: check.entity)
        while try statement.step(), found.count < Self.listedUnreadableValues {
            let value = try statement.attribute(check.storedType, at: 1)
            guard let reason = check.failure(value) else { continue }
            let text = if case .string(let json) = value, check.storedType == .codable { json } else { value.shapeText }
            found.append(UndecodableValue(
                entity: check.entity, property: check.property, objectID: entity.map { ObjectID(entity: $0, primaryKey: statement.int64(at: 0)) },
                storedValue: text, type: check.typeName, reason: reason))
        }
        return found
    }

    private func perform(_ operation: MigrationOperation) throws(ObjectGraphError) {
        guard case let .dropColumns(table, columns) = operation else {
            for statement in operation.statements(in: dialect) { try connection.execute(statement) }
            return
        }
        guard !rebuildsTables else { return try rebuild(table, dropping: columns) }
        let statements = operation.statements(in: dialect)
        for (index, statement) in statements.enumerated() {
            do throws(ObjectGraphError) {
                try connection.execute(statement)
            } catch {
                // SQLite before 3.35 has no DROP COLUMN: copy the table instead.
                guard case .sqlite(_, let code, _) = error, code & 0xff == SQLITE_ERROR else { throw error }
                return try rebuild(table, dropping: Array(columns[index...]))
            }
        }
    }

    /// Copies `table` without `dropped` into a new table that takes its name. Its indexes go
    /// with the old table; ``alignIndexes(with:)`` creates them again.
    private func rebuild(_ table: String, dropping dropped: [String]) throws(ObjectGraphError) {
        let quoted = dialect.quotedName
        let statement = try connection.prepare("SELECT name, type FROM pragma_table_info(?1) ORDER BY cid")
        try statement.bind(table, at: 1)
        var kept: [(name: String, type: String)] = []
        let leaving = Set(dropped)
        while try statement.step() {
            let name = statement.string(at: 0)
            if !leaving.contains(name) { kept.append((name, statement.string(at: 1))) }
        }
        statement.reset()
        let fixed: Set<String> = ["pk", "entity", "version"]
        let definitions = ["pk INTEGER PRIMARY KEY", "entity TEXT NOT NULL", "version INTEGER NOT NULL"]
            + kept.filter { !fixed.contains($0.name) }.map { "\(quoted($0.name)) \($0.type)" }
        let copy = quoted(table + "~rebuilt")
        let columns = kept.map { quoted($0.name) }.joined(separator: ", ")
        try connection.execute("CREATE TABLE \(copy) (\(definitions.joined(separator: ", ")))")
        try connection.execute("INSERT INTO \(copy) (\(columns)) SELECT \(columns) FROM \(quoted(table))")
        try connection.execute("DROP TABLE \(quoted(table))")
        try connection.execute("ALTER TABLE \(copy) RENAME TO \(quoted(table))")
    }

    // MARK: Indexes

    private func dropIndexes(keeping kept: Set<String>) throws(ObjectGraphError) {
        let kept = Set(kept.map(dialect.fittedName))
        for name in try connection.storeIndexes().keys.sorted() where !kept.contains(name) {
            try connection.execute("DROP INDEX \(dialect.quotedName(name))")
        }
    }

    /// Creates the indexes `wanted` that the file lacks or has otherwise, and drops the
    /// store's indexes it does not want.
    ///
    /// - Throws: ``ObjectGraphError/migrationRefused(path:changes:)`` naming the values when
    ///   objects break a uniqueness constraint.
    func alignIndexes(with wanted: [SchemaDefinitions.Index]) throws(ObjectGraphError) {
        // PostgreSQL keeps 63 bytes of a name: the file's names are the fitted ones.
        let inFile = try connection.storeIndexes()
        let wantedNames = Set(wanted.map { dialect.fittedName($0.name) })
        for name in inFile.keys.sorted() where !wantedNames.contains(name) {
            try connection.execute("DROP INDEX \(dialect.quotedName(name))")
        }
        for index in wanted where inFile[dialect.fittedName(index.name)] != index.sql {
            if inFile[dialect.fittedName(index.name)] != nil { try connection.execute("DROP INDEX \(dialect.quotedName(index.name))") }
            let created: Void? = try connection.refusingDuplicates { () throws(ObjectGraphError) in
                for statement in SchemaDefinitions.statements(creating: index, in: dialect) { try connection.execute(statement) }
            }
            if created == nil {
                // A constraint's index that rows break; any other index refusing rows is a bug
                // the duplicates query below names anyway.
                guard let constraint = index.constraint else {
                    throw .corruptStore(path: connection.path, message: "the index \(index.name) refused the rows of \(index.table)")
                }
                throw .migrationRefused(path: connection.path, changes: [try duplicates(breaking: constraint, of: index)])
            }
        }
    }

    /// Names the first values that two objects share against a new uniqueness constraint.
    private func duplicates(
        breaking constraint: (entity: String, properties: [String], terms: [String], scope: String?), of index: SchemaDefinitions.Index
    ) throws(ObjectGraphError) -> RefusedChange {
        let terms = constraint.terms
        let conditions = terms.map { "(\($0)) IS NOT NULL" } + (constraint.scope.map { [$0] } ?? [])
        let values = dialect.concatenation(terms.map(dialect.quotedValue).flatMap { [$0, "', '"] }.dropLast())
        let sql = "SELECT \(values), \(dialect.listAggregate("pk")) FROM \(dialect.quotedName(index.table)) "
            + "WHERE \(conditions.joined(separator: " AND ")) GROUP BY \(terms.joined(separator: ", ")) HAVING count(*) > 1 LIMIT 1"
        let statement = try connection.prepare(sql)
        defer { statement.reset() }
        let example = try statement.step() ? "(\(statement.string(at: 0))) held by the objects with keys \(statement.string(at: 1))" : "equal values"
        return RefusedChange(
            entity: constraint.entity, property: constraint.properties.joined(separator: ", "), stored: "objects that share \(example)",
            model: "unique", reason: "objects in the file break the uniqueness constraint the model adds",
            fix: "make them unique in a MigrationStage to this model (stages run before constraints are created), or leave the constraint out")
    }
}
