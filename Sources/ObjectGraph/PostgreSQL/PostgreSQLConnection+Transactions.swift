import CLibPQ

/// How a transaction reads and whether it may write.
struct PostgreSQLTransactionMode: Equatable, Sendable {
    /// The `BEGIN` statement that opens it.
    let begin: String
    /// Whether nothing is written: its `COMMIT` is then not waited for (see
    /// ``PostgreSQLConnection/transaction(_:_:)``).
    let isReadOnly: Bool

    /// The default: each statement sees what was committed before it began; writes lock rows.
    static let readWrite = PostgreSQLTransactionMode(begin: "BEGIN", isReadOnly: false)
    /// Every statement sees one snapshot, taken at the first; nothing can be written. What a
    /// fetch that runs several statements needs.
    static let readOnlySnapshot = PostgreSQLTransactionMode(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", isReadOnly: true)
}

extension PostgreSQLConnection {
    /// Whether a transaction is open (or failed and not yet rolled back).
    var isInTransaction: Bool {
        if deferredBegin != nil { return true }
        if awaitsCommit { return false }  // its COMMIT is on its way
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Runs `body` in a transaction, committed if `body` returns and rolled back if it throws.
    /// Inside a transaction already, `body` runs in a savepoint of it. `body` may end the
    /// transaction itself with ``executeAndCommit(_:_:)``, as a save does.
    ///
    /// A `COMMIT` the server answers with `ROLLBACK` (the transaction had failed, and `body`
    /// swallowed the error) throws: nothing of it was written. If the connection is lost, the
    /// server rolls the transaction back; the error is ``ObjectGraphError/connectionLost(server:database:message:)``.
    ///
    /// The `BEGIN` costs no round trip of its own: it is sent with the transaction's first
    /// statement, in one pipeline (a body that runs no statement sends none). A read-only
    /// transaction (``PostgreSQLTransactionMode/isReadOnly``) costs none for its `COMMIT`
    /// either: it is sent without waiting for the answer, which the connection's next statement
    /// reads (nothing was written, so nothing waits on it).
    @discardableResult
    func transaction<Result>(
        _ mode: PostgreSQLTransactionMode = .readWrite, _ body: () throws(ObjectGraphError) -> Result
    ) throws(ObjectGraphError) -> Result {
        let nested = isInTransaction
        if nested {
            try execute("SAVEPOINT og_nested")
        } else {
            deferredBegin = mode.begin  // sent with the first statement
        }
        do throws(ObjectGraphError) {
            let result = try body()
            if nested {
                try execute("RELEASE SAVEPOINT og_nested")
            } else if deferredBegin != nil {
                deferredBegin = nil  // nothing ran: nothing to end
            } else if mode.isReadOnly, let handle, PQtransactionStatus(handle) == PQTRANS_INTRANS,
                      PQsendQueryParams(handle, "COMMIT", 0, nil, nil, nil, nil, 1) == 1 {
                // Nothing was written and every statement succeeded: the answer is read by
                // the connection's next statement.
                awaitsCommit = true
            } else if isInTransaction {
                let commit = try execute("COMMIT")
                if commit.commandStatus != "COMMIT" {
                    throw .postgreSQL(server: origin.server, database: origin.database, code: "25P02",
                                      message: "the transaction had failed and was rolled back: nothing of it was written")
                }
            }
            return result
        } catch {
            if !nested, deferredBegin != nil {
                // Failed before its BEGIN was sent (preparing the first statement, say).
                if case .connectionLost = error { beginFoundConnectionLost = true }
                deferredBegin = nil
            }
            if isConnected {
                if nested {
                    _ = try? execute("ROLLBACK TO SAVEPOINT og_nested")
                    _ = try? execute("RELEASE SAVEPOINT og_nested")
                } else if isInTransaction {
                    _ = try? execute("ROLLBACK")
                }
            }
            throw error
        }
    }
}
