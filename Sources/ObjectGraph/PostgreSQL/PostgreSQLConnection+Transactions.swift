import CLibPQ

/// How a transaction reads and whether it may write.
struct PostgreSQLTransactionMode: Equatable, Sendable {
    /// The `BEGIN` statement that opens it.
    let begin: String

    /// The default: each statement sees what was committed before it began; writes lock rows.
    static let readWrite = PostgreSQLTransactionMode(begin: "BEGIN")
    /// Every statement sees one snapshot, taken at the first; nothing can be written. What a
    /// fetch that runs several statements needs.
    static let readOnlySnapshot = PostgreSQLTransactionMode(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
}

extension PostgreSQLConnection {
    /// Whether a transaction is open (or failed and not yet rolled back).
    var isInTransaction: Bool {
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
    @discardableResult
    func transaction<Result>(
        _ mode: PostgreSQLTransactionMode = .readWrite, _ body: () throws(ObjectGraphError) -> Result
    ) throws(ObjectGraphError) -> Result {
        let nested = isInTransaction
        try execute(nested ? "SAVEPOINT og_nested" : mode.begin)
        do throws(ObjectGraphError) {
            let result = try body()
            if nested {
                try execute("RELEASE SAVEPOINT og_nested")
            } else if isInTransaction {
                let commit = try execute("COMMIT")
                if commit.commandStatus != "COMMIT" {
                    throw .postgreSQL(server: origin.server, database: origin.database, code: "25P02",
                                      message: "the transaction had failed and was rolled back: nothing of it was written")
                }
            }
            return result
        } catch {
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
