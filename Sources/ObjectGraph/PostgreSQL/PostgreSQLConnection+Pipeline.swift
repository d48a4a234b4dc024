import CLibPQ
import Foundation

/// Many statements sent without waiting for each one's result (libpq's pipeline mode), so that
/// the server runs one while the client encodes the next: what a bulk insert's statements of a
/// thousand rows each are sent with.
extension PostgreSQLConnection {
    /// A statement prepared without parameter types, and the types the server inferred for
    /// them (see ``execute(_:inferringTypes:)``).
    struct InferredStatement {
        let sql: String
        let name: String
        let types: [PostgreSQLType]
    }

    /// Prepares `sql` without parameter types, once per text, and reads the types the server
    /// inferred, as ``execute(_:inferringTypes:)`` does: what ``pipeline(_:)`` sends.
    func prepareInferringTypes(_ sql: String) throws(ObjectGraphError) -> InferredStatement {
        let handle = try liveHandle()
        let key = PreparedKey(sql: sql, types: [])
        let name = try preparedName(for: key, on: handle)
        return InferredStatement(sql: sql, name: name, types: try parameterTypes(of: key, name: name, on: handle))
    }

    /// Calls `body` with a `send` function that queues a statement prepared by
    /// ``prepareInferringTypes(_:)`` with its parameters, then waits for every result.
    ///
    /// The statements run in the order sent, in the transaction open on the connection (each
    /// alone outside one). The first one that fails fails the call with its error, as
    /// ``execute(_:_:)`` would, and the server skips the ones after it; a transaction open is
    /// then failed. Their results are not returned: send statements whose results are small
    /// (no `RETURNING`), since the server's answers are read only once everything is sent.
    /// Prepare every statement before calling this: nothing else may run on the connection
    /// until `body` returns. In the SQL log each statement's duration runs from its sending to
    /// the last result.
    func pipeline(
        _ body: (_ send: (InferredStatement, [PostgreSQLValue]) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) -> Void
    ) throws(ObjectGraphError) {
        let handle = try liveHandle(beginning: true)
        guard PQenterPipelineMode(handle) == 1 else { throw failure(of: nil, doing: "a pipeline of statements") }
        let logging = log?.isEnabled == true
        var sent: [(sql: String, parameters: [PostgreSQLValue], at: ContinuousClock.Instant)] = []
        var sentSQL: [String] = []
        var sendingError: ObjectGraphError?
        do throws(ObjectGraphError) {
            try body { statement, parameters throws(ObjectGraphError) in
                let queued = try withParameters(parameters) { values, lengths, formats in
                    PQsendQueryPrepared(handle, statement.name, Int32(parameters.count), values, lengths, formats, 1) == 1
                }
                guard queued else { throw failure(of: nil, doing: statement.sql) }
                sentSQL.append(statement.sql)
                if logging { sent.append((statement.sql, parameters, ContinuousClock.now)) }
            }
        } catch {
            sendingError = error
        }
        // A lost connection is dropped by `failure(of:doing:)`: nothing is left to read.
        guard self.handle == handle else { throw sendingError ?? failure(of: nil, doing: "a pipeline of statements") }
        let results = PQpipelineSync(handle) == 1 ? Self.pipelineResults(of: handle, statements: sentSQL.count) : []
        defer { results.forEach { PQclear($0) } }
        if let log, logging {
            let end = ContinuousClock.now
            for statement in sent {
                let expanded = connectionString.scrub(PostgreSQLStatementText.expanding(statement.sql, with: statement.parameters))
                log.record(SQLLogEntry(sql: statement.sql, expandedSQL: expanded, duration: end - statement.at, evaluatedInMemory: logNote))
            }
        }
        if let sendingError { throw sendingError }
        for (result, sql) in zip(results, sentSQL) {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_PIPELINE_ABORTED { continue }
            throw failure(of: result, doing: sql)
        }
        guard results.count == sentSQL.count, PQstatus(handle) == CONNECTION_OK else {
            throw failure(of: nil, doing: sentSQL.last ?? "a pipeline of statements")
        }
    }
}
