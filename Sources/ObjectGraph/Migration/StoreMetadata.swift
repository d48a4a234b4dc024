/// The rows of a file's `objectgraph-metadata` table: `format` (``SQLSchema/formatVersion``),
/// `fingerprint` (``ObjectModel/fingerprint``, which the first release compares), `schema`
/// (the ``StoredSchema`` as JSON), `model-version` (the version of the model that last brought
/// the file up to date) and one `stage:<name>` row per migration stage run on the file.
///
/// Files of the first release have only `format` and `fingerprint`; it ignores the other rows,
/// so it keeps opening a file whose model did not change.
struct StoreMetadata: Equatable {
    var values: [String: String]

    static let stagePrefix = "stage:"

    var format: String? { values["format"] }
    var fingerprint: String? { values["fingerprint"] }
    var schema: String? { values["schema"] }
    var modelVersion: Int? { values["model-version"].flatMap { Int($0) } }
    /// The stages run on the file.
    var stages: Set<String> {
        Set(values.keys.filter { $0.hasPrefix(Self.stagePrefix) }.map { String($0.dropFirst(Self.stagePrefix.count)) })
    }

    static func read(from connection: some SQLConnection) throws(ObjectGraphError) -> StoreMetadata {
        let statement = try connection.prepare(selectSQL(in: connection.dialect))
        defer { statement.reset() }
        var values: [String: String] = [:]
        while try statement.step() { values[statement.string(at: 0)] = statement.string(at: 1) }
        return StoreMetadata(values: values)
    }

    /// The rows for a file at `schema`, written by `model`, after `stages`.
    static func rows(schema: StoredSchema, model: ObjectModel, stages: [String] = []) -> [String: String] {
        // The first release compares the fingerprint and lays the model out by its own rules:
        // only a file laid out as it would be gets the model's fingerprint, so that it opens
        // exactly the files it can read.
        let laidOutAsNew = schema.hasSameNames(as: StoredSchema(model: model))
        var rows = [
            "format": SQLSchema.formatVersion,
            "fingerprint": laidOutAsNew ? model.fingerprint : "(laid out by a later version; see schema)",
            "schema": schema.encoded,
            "model-version": String(model.version),
        ]
        for stage in stages { rows[stagePrefix + stage] = String(model.version) }
        return rows
    }

    /// `SELECT key, value FROM …`: every row.
    static func selectSQL(in dialect: SQLDialect) -> String {
        "SELECT key, value FROM \(dialect.quotedName(SQLSchema.metadataTableName))"
    }

    /// Inserts the row `(key, value)` from the first two parameters, or replaces its value.
    static func writeSQL(in dialect: SQLDialect) -> String {
        let sql = SQLBuilder(dialect)
        return sql.upsert(into: SQLSchema.metadataTableName, columns: ["key", "value"], values: sql.parameters(from: 1, count: 2),
                          conflictColumns: ["key"], updating: ["value"])
    }

    /// Inserts or replaces `rows`.
    static func write(_ rows: [String: String], to connection: some SQLConnection) throws(ObjectGraphError) {
        let statement = try connection.prepare(writeSQL(in: connection.dialect))
        for (key, value) in rows.sorted(by: { $0.key < $1.key }) {
            try statement.bind(key, at: 1)
            try statement.bind(value, at: 2)
            try statement.run()
        }
    }
}
