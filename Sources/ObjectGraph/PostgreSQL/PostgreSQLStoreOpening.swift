/// The checks and set-up of a database when a ``PostgreSQLStore`` opens it.
///
/// As with a SQLite file, everything is checked before anything is written: a server that is
/// too old or a database not in UTF-8 is refused, a schema without the store's metadata table
/// gets the store's tables in one transaction, and an existing store is brought to the model by
/// ``StoreMigrator`` in one transaction — PostgreSQL runs DDL inside transactions, so a
/// migration that fails leaves the database exactly as it was. Openers in several processes
/// take turns through the store's lock (``lockStore(on:)``) and look again once they hold it.
///
/// Opening reads the catalogue and the metadata table: a few rows whatever the size of the data.
struct PostgreSQLStoreOpening {
    let connection: PostgreSQLStoreConnection
    let model: ObjectModel
    let plan: MigrationPlan

    /// `normalize()` (string comparisons and indexes) needs 13, a `numeric` infinity (a
    /// `Decimal` NaN) 14.
    static let minimumServerVersion = 140_000

    /// Prepares the schema; returns its layout, which describes the model.
    func prepare() throws(ObjectGraphError) -> OpenedSchema {
        try checkServer()
        let connection = connection
        var migrator = StoreMigrator(connection: connection, model: model, plan: plan) { model, stored in
            PostgreSQLStore(migrating: connection, model: model, stored: stored)
        }
        migrator.lockSchema = { () throws(ObjectGraphError) in try Self.lockStore(on: connection) }
        if try !connection.tableNames().contains(SQLSchema.metadataTableName) {
            let created = try connection.writeTransaction { () throws(ObjectGraphError) -> OpenedSchema? in
                try Self.lockStore(on: connection)
                // Another opener may have created the store since the first look.
                guard try !connection.tableNames().contains(SQLSchema.metadataTableName) else { return nil }
                return try migrator.createFile()
            }
            if let created { return created }
        }
        let schema = try migrator.bringUpToDate()
        try createMissingPieces()
        return schema
    }

    /// The database and the schema the store's tables are in.
    func place() throws(ObjectGraphError) -> (database: String, schema: String) {
        guard let schema = try connection.text("SELECT current_schema()") else {
            throw .incompatibleStore(path: connection.path, message: "no schema of the connection's search path exists: create it, or set search_path")
        }
        return (connection.connection.origin.database, schema)
    }

    /// Refuses a server too old for the store's SQL, and a database whose text is not UTF-8
    /// (strings are compared in their UTF-8 bytes after `normalize`, which needs UTF-8).
    private func checkServer() throws(ObjectGraphError) {
        let version = connection.connection.serverVersion
        guard version >= Self.minimumServerVersion else {
            let found = connection.connection.parameterStatus("server_version") ?? String(version)
            throw .incompatibleStore(path: connection.path, message: "the server runs PostgreSQL \(found); ObjectGraph needs 14 or later")
        }
        let encoding = connection.connection.parameterStatus("server_encoding") ?? "?"
        guard encoding == "UTF8" else {
            throw .incompatibleStore(
                path: connection.path,
                message: "the database's encoding is \(encoding); ObjectGraph stores text as UTF-8: create the database with ENCODING 'UTF8'")
        }
    }

    /// Creates what a store made by an earlier version may lack: `og_arith` (see
    /// ``PostgreSQLQueryFunctions``) and the history tables. Reads only when nothing lacks.
    private func createMissingPieces() throws(ObjectGraphError) {
        let lookup = "SELECT count(*) FROM pg_proc WHERE proname = 'og_arith' AND pronamespace = current_schema()::regnamespace"
        let lacksFunction = try connection.text(lookup) == "0"
        let lacksHistory = try !connection.tableNames().contains(HistorySQL.stateTableName)
        guard lacksFunction || lacksHistory else { return }
        try connection.writeTransaction { () throws(ObjectGraphError) in
            try Self.lockStore(on: connection)
            for statement in PostgreSQLQueryFunctions.definitions { try connection.execute(statement) }
            for statement in PostgreSQLHistoryClock.creationStatements { try connection.execute(statement) }
        }
    }

    /// The statement of ``lockStore(on:)``.
    static let lockSQL = "SELECT pg_advisory_xact_lock(hashtextextended('objectgraph ' || current_database() || '.' || coalesce(current_schema(), ''), 0)), "
        + "set_config('\(HistorySQL.writerSetting)', 'on', true)"

    /// Takes the store's lock for the rest of the transaction open on `connection`: every
    /// writer of the store (a save, a batch, a migration, in any process) takes it first, so
    /// that they take turns. A transaction-scoped advisory lock named after the database and
    /// the schema; it ends with the transaction, also when the connection is lost.
    ///
    /// The same statement marks the transaction as the store's own (``HistorySQL/writerSetting``,
    /// until it ends), so that its writes are not counted as another program's.
    static func lockStore(on connection: PostgreSQLStoreConnection) throws(ObjectGraphError) {
        let statement = try connection.statement(lockSQL)
        defer { statement.reset() }
        _ = try statement.step()
    }
}
