/// Every SQL statement of the persistent history, in one place, for every SQL store.
///
/// Three tables sit beside the entities' tables:
///
/// - `objectgraph-history`: one row per transaction that changed rows — its token, author,
///   time (seconds since 1970) and its changes as one blob (``HistoryRecord/encoded()``).
/// - `objectgraph-history-state`: one row — the store's identifier (part of every token), the
///   last token handed out, the token through which history was trimmed, and a count of the
///   store's own write transactions, by which a reader tells a write that bypassed the store
///   (one that changed the file and not this count) from its own, and `foreign_writes`: a
///   count of the writes made to the entities' tables by any other program (the `sqlite3`
///   shell, a migration tool, `psql`), kept by triggers (``foreignWriteTriggers(on:notifying:)``)
///   that the store's own connections do not fire.
/// - `objectgraph-history-readers`: how far each reader has read (see ``HistoryTrimming``).
///
/// The statements use the SQL that SQLite and PostgreSQL share (`RETURNING`,
/// `ON CONFLICT … DO UPDATE`, `CASE`); the dialect supplies the placeholders, the column types
/// and how to ask whether another connection committed.
///
/// In PostgreSQL the state row is also the history's clock: a save updates it last (see
/// ``PostgreSQLHistoryClock``), so that tokens are handed out in commit order with no gaps.
struct HistorySQL: Sendable {
    let dialect: SQLDialect

    static let sqlite = HistorySQL(dialect: .sqlite)
    static let postgreSQL = HistorySQL(dialect: .postgreSQL)

    static let transactionsTableName = "objectgraph-history"
    static let stateTableName = "objectgraph-history-state"
    static let readersTableName = "objectgraph-history-readers"
    private var transactions: String { dialect.quotedName(Self.transactionsTableName) }
    private var state: String { dialect.quotedName(Self.stateTableName) }
    private var readers: String { dialect.quotedName(Self.readersTableName) }

    /// A statement whose single value changes when another connection committed (SQLite's
    /// `PRAGMA data_version`), if the dialect has one.
    var commitsElsewhere: String? { dialect == .sqlite ? "PRAGMA data_version" : nil }

    private func p(_ number: Int) -> String { dialect.placeholder(number) }
    private var integerType: String { dialect.columnType(.key) }
    private var textType: String { dialect.columnType(.text) }
    private var realType: String { dialect.columnType(.attribute(.double)) }
    private var blobType: String { dialect.columnType(.attribute(.data)) }

    // MARK: Tables

    var createTables: [String] {
        [
            "CREATE TABLE IF NOT EXISTS \(transactions) (token \(integerType) PRIMARY KEY, author \(textType) NOT NULL, timestamp \(realType) NOT NULL, changes \(blobType) NOT NULL)",
            "CREATE TABLE IF NOT EXISTS \(state) (id \(integerType) PRIMARY KEY CHECK (id = 1), store \(textType) NOT NULL, last_token \(integerType) NOT NULL, "
                + "trimmed_through \(integerType) NOT NULL, writes \(integerType) NOT NULL, foreign_writes \(integerType) NOT NULL DEFAULT 0)",
            "CREATE TABLE IF NOT EXISTS \(readers) (name \(textType) PRIMARY KEY, token \(integerType) NOT NULL, seen \(realType) NOT NULL, "
                + "container \(integerType) NOT NULL, endpoint \(textType))",
        ]
    }

    /// Binds the new store's identifier; does nothing where the row exists.
    var insertState: String {
        "INSERT INTO \(state) (id, store, last_token, trimmed_through, writes) VALUES (1, \(p(1)), 0, 0, 0) ON CONFLICT (id) DO NOTHING"
    }

    // MARK: Writing

    /// The next token, counted as a write of the store's own.
    var nextToken: String { "UPDATE \(state) SET last_token = last_token + 1, writes = writes + 1 WHERE id = 1 RETURNING last_token" }
    /// Counts a write transaction of the store's own that records no history (keys, progress).
    var noteWrite: String { "UPDATE \(state) SET writes = writes + 1 WHERE id = 1" }
    var insertTransaction: String {
        "INSERT INTO \(transactions) (token, author, timestamp, changes) VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)))"
    }

    /// The history entry of the transaction whose token the common table `clock` holds
    /// (``PostgreSQLHistoryClock``): author, time and changes from the first three parameters.
    var insertTransactionFromClock: String {
        "INSERT INTO \(transactions) (token, author, timestamp, changes) SELECT token, \(p(1)), \(p(2)), \(p(3)) FROM clock"
    }

    // MARK: Reading

    /// The last token handed out.
    var selectLastToken: String { "SELECT last_token FROM \(state) WHERE id = 1" }
    /// `store, last_token, trimmed_through, writes, foreign_writes`.
    var selectState: String { "SELECT store, last_token, trimmed_through, writes, foreign_writes FROM \(state) WHERE id = 1" }
    /// `token, author, timestamp, changes` after the bound token, in order.
    var transactionsAfter: String {
        "SELECT token, author, timestamp, changes FROM \(transactions) WHERE token > \(p(1)) ORDER BY token"
    }

    /// `selectState`'s columns, then `transactionsAfter`'s (`NULL` when there is none), in one
    /// statement: what a change watcher reads, in one round trip.
    var stateAndTransactionsAfter: String {
        "SELECT s.store, s.last_token, s.trimmed_through, s.writes, s.foreign_writes, t.token, t.author, t.timestamp, t.changes "
            + "FROM \(state) AS s LEFT JOIN \(transactions) AS t ON t.token > \(p(1)) WHERE s.id = 1 ORDER BY t.token"
    }

    // MARK: Writes of other programs

    /// Adds `foreign_writes` to the state table of a file made before it existed.
    var addForeignWritesColumn: String {
        "ALTER TABLE \(state) ADD COLUMN \(dialect == .postgreSQL ? "IF NOT EXISTS " : "")foreign_writes \(integerType) NOT NULL DEFAULT 0"
    }
    /// Counts a write the history cannot describe (a migration that rebuilt tables).
    var countForeignWrite: String { "UPDATE \(state) SET foreign_writes = foreign_writes + 1 WHERE id = 1" }
    /// The PostgreSQL setting by which a session says it is the store's: its writes are not
    /// counted as foreign.
    static let writerSetting = "objectgraph.writer"
    /// How the names of the foreign-write triggers begin.
    static let foreignWriteTriggerPrefix = "objectgraph-foreign-"
    /// The PostgreSQL function the foreign-write triggers run.
    static let foreignWriteFunctionName = "objectgraph-count-foreign-write"

    /// The name of the trigger on `table` that counts other programs' writes of `kind`
    /// (`insert`, `update`, `delete`; PostgreSQL has one trigger for all three).
    func foreignWriteTriggerNames(on table: String) -> [String] {
        dialect == .postgreSQL
            ? [dialect.fittedName(Self.foreignWriteTriggerPrefix + table)]
            : ["insert", "update", "delete"].map { Self.foreignWriteTriggerPrefix + "\(table)-\($0)" }
    }

    /// The statements that make `tables` count the writes of any other program in
    /// `foreign_writes`; idempotent. Run only where the state table exists (a trigger naming a
    /// missing table would make every write to its table fail).
    ///
    /// - SQLite: a row trigger per table and kind of write. The store's connections turn the
    ///   triggers of the file off (`SQLITE_DBCONFIG_ENABLE_TRIGGER`), so they cost the store's
    ///   own saves nothing; any other connection (the `sqlite3` shell) fires them and needs
    ///   nothing of ours to do so.
    /// - PostgreSQL: a statement trigger per table, skipped by sessions that set
    ///   ``writerSetting`` (the store's); it also sends the `NOTIFY` of `channel`, so that the
    ///   store's readers look at once.
    func foreignWriteTriggers(on tables: [String], notifying channel: String? = nil) -> [String] {
        if dialect == .postgreSQL {
            let function = dialect.quotedName(Self.foreignWriteFunctionName)
            let notify = channel.map { "PERFORM pg_notify(\(dialect.literal($0)), ''); " } ?? ""
            let body = "BEGIN UPDATE \(state) SET foreign_writes = foreign_writes + 1 WHERE id = 1; \(notify)RETURN NULL; END"
            // The store's schema, whatever the writing session's search path is.
            return ["CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $og$\(body)$og$"]
                + tables.map { table in
                    "CREATE OR REPLACE TRIGGER \(dialect.quotedName(foreignWriteTriggerNames(on: table)[0])) "
                        + "AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(dialect.quotedName(table)) FOR EACH STATEMENT "
                        + "WHEN (current_setting('\(Self.writerSetting)', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION \(function)()"
                }
        }
        return tables.flatMap { table in
            zip(["INSERT", "UPDATE", "DELETE"], foreignWriteTriggerNames(on: table)).map { kind, name in
                "CREATE TRIGGER IF NOT EXISTS \(dialect.quotedName(name)) AFTER \(kind) ON \(dialect.quotedName(table)) "
                    + "BEGIN \(countForeignWrite); END"
            }
        }
    }

    // MARK: Trimming and readers

    var deleteThrough: String { "DELETE FROM \(transactions) WHERE token <= \(p(1))" }
    var markTrimmed: String {
        "UPDATE \(state) SET trimmed_through = CASE WHEN trimmed_through < \(p(1)) THEN \(p(1)) ELSE trimmed_through END, writes = writes + 1 WHERE id = 1"
    }
    /// `name, token, seen, container, endpoint`.
    var upsertReader: String {
        "INSERT INTO \(readers) (name, token, seen, container, endpoint) VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5))) "
            + "ON CONFLICT (name) DO UPDATE SET token = excluded.token, seen = excluded.seen, container = excluded.container, endpoint = excluded.endpoint"
    }
    var selectReaders: String { "SELECT name, token, seen, container, endpoint FROM \(readers) ORDER BY name" }
    var deleteReader: String { "DELETE FROM \(readers) WHERE name = \(p(1))" }
}
