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
                + "trimmed_through \(integerType) NOT NULL, writes \(integerType) NOT NULL)",
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
    /// `store, last_token, trimmed_through, writes`.
    var selectState: String { "SELECT store, last_token, trimmed_through, writes FROM \(state) WHERE id = 1" }
    /// `token, author, timestamp, changes` after the bound token, in order.
    var transactionsAfter: String {
        "SELECT token, author, timestamp, changes FROM \(transactions) WHERE token > \(p(1)) ORDER BY token"
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
