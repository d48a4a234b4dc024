import Foundation

/// How a PostgreSQL store numbers the history transactions its saves write, so that a reader
/// that asks for "every history transaction after my token" gets each one exactly once, in
/// commit order, with no gaps — from any connection, process or machine.
///
/// A sequence cannot do it: `nextval()` hands out numbers when a transaction asks, not when it
/// commits, so transaction A can take 7, transaction B take 8 and commit first, and a reader
/// that sees 8 and moves its token past it never sees 7 when A commits later.
///
/// The clock is the history's state row (``HistorySQL``, `objectgraph-history-state`), whose
/// `last_token` every save that records history advances as its last write before `COMMIT`:
///
/// ```sql
/// UPDATE "objectgraph-history-state" SET last_token = last_token + 1, writes = writes + 1 WHERE id = 1 RETURNING last_token AS token
/// ```
///
/// (in practice inside the statement that also writes the history rows and sends `NOTIFY`, sent
/// with `COMMIT` in one round trip: see ``commit(on:recording:_:notifying:)``).
///
/// The update locks the row until the transaction ends, so a second save that reaches it waits
/// until the first has committed (or rolled back) and then reads the new value. Tokens are
/// therefore taken in commit order, and a transaction becomes visible only after every
/// transaction with a lower token: the tokens any snapshot sees are exactly `1...n`. A rolled-back
/// save gives its token back, so there are no holes either, and a gap a reader meets can only
/// mean trimmed history. The price is that commits that write history are serialised from the
/// clock update to the end of the commit; PostgreSQL already serialises them there, because
/// `NOTIFY` (which the same saves send) takes a cluster-wide lock from its pre-commit step until
/// the commit ends. Sending the clock's statement and `COMMIT` together keeps the window that
/// short: measured with pgbench, it costs no throughput beyond what `NOTIFY` costs alone, where
/// a round trip inside the window halves it. See `/work/notes/postgres-design.md` for the options weighed.
///
/// Taking the clock last also rules out deadlocks: a transaction that holds it waits for no
/// other lock (it only inserts its own new history rows after it), so no cycle can close.
///
/// (A ``PostgreSQLStore``'s writers also take turns for the whole of a save, see
/// ``PostgreSQLStoreOpening/lockStore(on:)``; the clock keeps the history in commit order
/// whatever the writers do before it.)
enum PostgreSQLHistoryClock {
    /// The history tables, with the clock at token 0, if they do not exist.
    static var creationStatements: [String] {
        let sql = HistorySQL.postgreSQL
        return sql.createTables + [sql.insertState.replacingOccurrences(of: SQLDialect.postgreSQL.placeholder(1), with: SQLDialect.postgreSQL.literal(UUID().uuidString))]
    }

    static let advanceSQL = HistorySQL.postgreSQL.nextToken + " AS token"
    static let currentSQL = HistorySQL.postgreSQL.selectLastToken

    /// Ends the save's transaction on `connection`: takes the next token, runs `historyInsert`
    /// (an `INSERT` that reads the token from the common table `clock`, as
    /// ``HistorySQL/insertTransactionFromClock`` does), sends the token as a `NOTIFY` on
    /// `channel` (none when `nil`), and commits — in one round trip. Call it after the save's last write to the
    /// model's tables.
    ///
    /// - Returns: the save's token.
    @discardableResult
    static func commit(
        on connection: PostgreSQLConnection, recording historyInsert: String, _ parameters: [PostgreSQLValue] = [],
        notifying channel: String?
    ) throws(ObjectGraphError) -> Int64 {
        let last = statement(recording: historyInsert, parameters, notifying: channel)
        return try token(from: connection.executeAndCommit(last.sql, last.parameters), on: connection)
    }

    /// The statement ``commit(on:recording:_:notifying:)`` sends before `COMMIT`, and its
    /// parameters: for a save that sends it with others (see ``PostgreSQLConnection/executeAndCommit(_:)-([PreparedCall])``),
    /// and reads its token from the result with ``token(from:on:)``.
    ///
    /// `written` follows the token in the notification's payload (see
    /// ``WakeUp/notificationSuffix(for:)``).
    static func statement(
        recording historyInsert: String, _ parameters: [PostgreSQLValue], notifying channel: String?, written: String = ""
    ) -> (sql: String, parameters: [PostgreSQLValue]) {
        let prefix = "WITH clock AS (\(advanceSQL)), recorded AS (\(historyInsert)) SELECT token"
        guard let channel else { return ("\(prefix) FROM clock", parameters) }
        let channelPlaceholder = SQLDialect.postgreSQL.placeholder(parameters.count + 1)
        guard !written.isEmpty else {
            return ("\(prefix), pg_notify(\(channelPlaceholder), token::text) FROM clock", parameters + [.text(channel)])
        }
        let writtenPlaceholder = SQLDialect.postgreSQL.placeholder(parameters.count + 2)
        return ("\(prefix), pg_notify(\(channelPlaceholder), token::text || \(writtenPlaceholder)) FROM clock",
                parameters + [.text(channel), .text(written)])
    }

    /// Takes the next token for the transaction open on `connection`, and holds the clock until
    /// the transaction ends (the step ``commit(on:recording:_:notifying:)`` starts with, on its
    /// own: tests use it to hold a save open at that point). Call it after the save's
    /// last write to the model's tables and before its history rows and `COMMIT`: from here to
    /// the commit, other saves wait.
    static func nextToken(on connection: PostgreSQLConnection) throws(ObjectGraphError) -> Int64 {
        precondition(connection.isInTransaction, "a history token is taken inside the save's transaction")
        return try token(from: connection.execute(advanceSQL), on: connection)
    }

    /// The token of the last committed history transaction (`0`: none yet): every token up to
    /// it is committed and visible.
    static func currentToken(on connection: PostgreSQLConnection) throws(ObjectGraphError) -> Int64 {
        try token(from: connection.execute(currentSQL), on: connection)
    }

    /// The token in the result of ``statement(recording:_:notifying:)``.
    static func token(from result: PostgreSQLResult, on connection: PostgreSQLConnection) throws(ObjectGraphError) -> Int64 {
        guard result.rowCount == 1, let token = try result.int64(row: 0, column: 0) else {
            throw .postgreSQL(server: connection.origin.server, database: connection.origin.database, code: "P0002",
                              message: "the history state \(HistorySQL.stateTableName) has no row; the database was changed by hand")
        }
        return token
    }
}
