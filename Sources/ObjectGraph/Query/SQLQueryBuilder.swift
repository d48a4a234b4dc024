/// A statement's text and the values of its numbered placeholders.
struct SQLStatementText: Sendable, Equatable {
    let sql: String
    let bindings: [PropertyValue]
}

/// Builds the statements of a ``StoreQuery``: rows, IDs, a count, and rows by key. Every
/// statement reads the hierarchy's table as `r` and names its rows' entities in the `WHERE`.
struct SQLQueryBuilder {
    let schema: SQLSchema
    let model: ObjectModel

    /// `SELECT` of whole rows, readable with the mapping of `query`'s one entity; `nil` when
    /// the query spans several entities (their rows are read by key after ``identifiers(_:)``).
    func rows(_ query: StoreQuery) -> SQLStatementText? {
        guard query.entities.count == 1, let mapping = schema.mappings[query.entities[0]] else { return nil }
        return statement(mapping.selectFromTable, query, filter: mapping.entityFilter)
    }

    /// `SELECT r.pk, r.entity` (the entity only when the hierarchy has several).
    func identifiers(_ query: StoreQuery) -> SQLStatementText {
        let table = SQLQueryRenderer.name(schema.table(of: query.entities[0]), in: schema.dialect)
        let columns = hierarchyHasSeveralEntities(query) ? "r.pk, r.entity" : "r.pk"
        return statement("SELECT \(columns) FROM \(table) AS r", query, filter: entityFilter(query))
    }

    /// `SELECT count(*)`.
    func count(_ query: StoreQuery) -> SQLStatementText {
        var unordered = query
        unordered.sortKeys = nil
        unordered.limit = nil
        unordered.offset = 0
        let table = SQLQueryRenderer.name(schema.table(of: query.entities[0]), in: schema.dialect)
        return statement("SELECT count(*) FROM \(table) AS r", unordered, filter: entityFilter(query))
    }

    /// The rows of `entity` whose keys are in the JSON array bound to the first parameter: one
    /// statement whatever the number of keys.
    func rows(of entity: EntityDescription) -> String? {
        guard let mapping = schema.mappings[entity] else { return nil }
        let filter = mapping.entityFilter.map { " AND \($0)" } ?? ""
        return mapping.selectFromTable + " WHERE r.pk IN \(schema.dialect.keyList(parameter: 1))" + filter
    }

    /// One row of exactly `entity`.
    func sample(of entity: EntityDescription) -> String? {
        guard let mapping = schema.mappings[entity] else { return nil }
        return mapping.selectFromTable + (mapping.entityFilter.map { " WHERE \($0)" } ?? "") + " LIMIT 1"
    }

    // MARK: Parts

    private func statement(_ select: String, _ query: StoreQuery, filter: String?) -> SQLStatementText {
        var renderer = SQLQueryRenderer(schema: schema, model: model)
        let entityTieBreak = hierarchyHasSeveralEntities(query) && query.entities.count > 1
        var conditions: [String] = filter.map { [$0] } ?? []
        if let condition = query.condition { conditions.append(renderer.condition(condition)) }
        if let boundary = query.after, let keys = query.sortKeys {
            conditions.append(renderer.after(boundary, keys: keys, entityTieBreak: entityTieBreak))
        }
        var sql = select
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if let keys = query.sortKeys {
            sql += " ORDER BY " + renderer.orderBy(keys, entityTieBreak: entityTieBreak)
        }
        switch schema.dialect {
        case .sqlite:
            if query.limit != nil || query.offset > 0 {
                sql += " LIMIT \(renderer.bind(.integer(Int64(query.limit ?? -1))))"
                if query.offset > 0 { sql += " OFFSET \(renderer.bind(.integer(Int64(query.offset))))" }
            }
        case .postgreSQL:
            if let limit = query.limit { sql += " LIMIT \(renderer.bind(.integer(Int64(limit))))" }
            if query.offset > 0 { sql += " OFFSET \(renderer.bind(.integer(Int64(query.offset))))" }
        }
        return SQLStatementText(sql: sql, bindings: renderer.bindings)
    }

    /// `r.entity IN (…)`, or `nil` when the query takes every row of the table.
    private func entityFilter(_ query: StoreQuery) -> String? {
        schema.entityFilter(query.entities, model: model)
    }

    private func hierarchyHasSeveralEntities(_ query: StoreQuery) -> Bool {
        (model.entity(named: query.entities[0].rootName)?.selfAndSubentityNames.count ?? 1) > 1
    }
}
