/// Every SQL statement of the persistent history, in one place, for every SQL store.
///
/// Three tables sit beside the entities' tables:
///
/// - `objectgraph-history`: one row per transaction that changed rows — its token, author,
///   time (seconds since 1970) and its changes as one blob (``HistoryRecord/encoded()``).
/// - `objectgraph-history-state`: one row — the store's identifier (part of every token), the
///   last token handed out, the token through which history was trimmed, and a count of the
///   store's own write transactions, by which a reader tells a write that bypassed the store
///   (one that changed the file and not this count) from its own.
/// - `objectgraph-history-readers`: how far each reader has read (see ``HistoryTrimming``).
///
/// The statements use the SQL that SQLite and PostgreSQL share (`RETURNING`,
/// `ON CONFLICT … DO UPDATE`, `CASE`); a dialect supplies the placeholders, the blob and real
/// types and how to ask whether another connection committed.
struct HistorySQL: Sendable {
    /// `?1` in SQLite, `$1` in PostgreSQL.
    let placeholder: @Sendable (Int) -> String
    let blobType: String
    let realType: String
    /// A statement whose single value changes when another connection committed (SQLite's
    /// `PRAGMA data_version`), if the dialect has one.
    let commitsElsewhere: String?

    static let sqlite = HistorySQL(placeholder: { "?\($0)" }, blobType: "BLOB", realType: "REAL", commitsElsewhere: "PRAGMA data_version")

    static let transactionsTableName = "objectgraph-history"
    static let stateTableName = "objectgraph-history-state"
    static let readersTableName = "objectgraph-history-readers"
    private static let transactions = SQLiteSchema.quoted(transactionsTableName)
    private static let state = SQLiteSchema.quoted(stateTableName)
    private static let readers = SQLiteSchema.quoted(readersTableName)

    private func p(_ number: Int) -> String { placeholder(number) }

    // MARK: Tables

    var createTables: [String] {
        [
            "CREATE TABLE IF NOT EXISTS \(Self.transactions) (token INTEGER PRIMARY KEY, author TEXT NOT NULL, timestamp \(realType) NOT NULL, changes \(blobType) NOT NULL)",
            "CREATE TABLE IF NOT EXISTS \(Self.state) (id INTEGER PRIMARY KEY CHECK (id = 1), store TEXT NOT NULL, last_token INTEGER NOT NULL, trimmed_through INTEGER NOT NULL, writes INTEGER NOT NULL)",
            "CREATE TABLE IF NOT EXISTS \(Self.readers) (name TEXT PRIMARY KEY, token INTEGER NOT NULL, seen \(realType) NOT NULL, container INTEGER NOT NULL, endpoint TEXT)",
        ]
    }

    /// Binds the new store's identifier; does nothing where the row exists.
    var insertState: String {
        "INSERT INTO \(Self.state) (id, store, last_token, trimmed_through, writes) VALUES (1, \(p(1)), 0, 0, 0) ON CONFLICT (id) DO NOTHING"
    }

    // MARK: Writing

    /// The next token, counted as a write of the store's own.
    var nextToken: String { "UPDATE \(Self.state) SET last_token = last_token + 1, writes = writes + 1 WHERE id = 1 RETURNING last_token" }
    /// Counts a write transaction of the store's own that records no history (keys, progress).
    var noteWrite: String { "UPDATE \(Self.state) SET writes = writes + 1 WHERE id = 1" }
    var insertTransaction: String {
        "INSERT INTO \(Self.transactions) (token, author, timestamp, changes) VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)))"
    }

    // MARK: Reading

    /// `store, last_token, trimmed_through, writes`.
    var selectState: String { "SELECT store, last_token, trimmed_through, writes FROM \(Self.state) WHERE id = 1" }
    /// `token, author, timestamp, changes` after the bound token, in order.
    var transactionsAfter: String {
        "SELECT token, author, timestamp, changes FROM \(Self.transactions) WHERE token > \(p(1)) ORDER BY token"
    }

    // MARK: Trimming and readers

    var deleteThrough: String { "DELETE FROM \(Self.transactions) WHERE token <= \(p(1))" }
    var markTrimmed: String {
        "UPDATE \(Self.state) SET trimmed_through = CASE WHEN trimmed_through < \(p(1)) THEN \(p(1)) ELSE trimmed_through END, writes = writes + 1 WHERE id = 1"
    }
    /// `name, token, seen, container, endpoint`.
    var upsertReader: String {
        "INSERT INTO \(Self.readers) (name, token, seen, container, endpoint) VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5))) "
            + "ON CONFLICT (name) DO UPDATE SET token = excluded.token, seen = excluded.seen, container = excluded.container, endpoint = excluded.endpoint"
    }
    var selectReaders: String { "SELECT name, token, seen, container, endpoint FROM \(Self.readers) ORDER BY name" }
    var deleteReader: String { "DELETE FROM \(Self.readers) WHERE name = \(p(1))" }
}
