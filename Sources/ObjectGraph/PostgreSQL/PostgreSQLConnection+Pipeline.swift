import CLibPQ
import Foundation

/// Many statements sent without waiting for each one's result (libpq's pipeline mode), so that
/// they cost one round trip: a deferred `BEGIN` with the first statement, a save's last
/// statements with its `COMMIT` (a small save's every statement, see
/// PostgreSQLStore+PipelinedSave.swift), and a bulk insert's statements of a thousand rows each, which
/// the server runs while the client encodes the next.
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

    /// A statement of ``executeAndCommit(_:)-([PreparedCall])``: its text (for the log and
    /// errors), the name it is prepared under on this connection, and its parameters.
    struct PreparedCall {
        let sql: String
        let name: String
        let parameters: [PostgreSQLValue]
    }

    /// `sql` prepared for parameters of the types of `parameters`, as ``execute(_:_:)`` prepares it.
    func preparedCall(_ sql: String, _ parameters: [PostgreSQLValue]) throws(ObjectGraphError) -> PreparedCall {
        let key = PreparedKey(sql: sql, types: parameters.map(\.typeOID.rawValue))
        return PreparedCall(sql: sql, name: try preparedName(for: key, on: try liveHandle()), parameters: parameters)
    }

    /// `statement` with `values` converted to the types the server inferred for its parameters
    /// (as a store's statements convert them, see ``PostgreSQLStoreConnection``).
    func preparedCall(_ statement: InferredStatement, values: [PropertyValue]) -> PreparedCall {
        let parameters = statement.types.indices.map { index in
            PostgreSQLValue.parameter(index < values.count ? values[index] : .null, as: statement.types[index])
        }
        return PreparedCall(sql: statement.sql, name: statement.name, parameters: parameters)
    }

    /// Runs `sql`, then `COMMIT`, sent together in libpq's pipeline mode (with the
    /// transaction's `BEGIN` too, if it is still deferred): one round trip instead of two. It
    /// ends the transaction open on the connection (``transaction(_:_:)`` sees it ended and
    /// commits nothing more), and is how a save ends: what `sql` locks (the history clock) is
    /// held only while the server runs it and commits, never across a round trip to the client.
    ///
    /// - Returns: `sql`'s result.
    /// - Throws: as ``executeAndCommit(_:)-([PreparedCall])``.
    @discardableResult
    func executeAndCommit(_ sql: String, _ parameters: [PostgreSQLValue] = []) throws(ObjectGraphError) -> PostgreSQLResult {
        try executeAndCommit([preparedCall(sql, parameters)])[0]
    }

    /// Runs `statements` in order in the open transaction and commits, in one pipeline: one
    /// round trip for all, the transaction's `BEGIN` included if it is still deferred.
    ///
    /// A statement that fails makes the server skip the ones after it and the `COMMIT`: nothing
    /// is written. When the `BEGIN` is still deferred and the server ended the session while the
    /// connection was idle, nothing is sent and the error is
    /// ``ObjectGraphError/connectionLost(server:database:message:)`` with
    /// ``beginFoundConnectionLost`` set, so that ``PostgreSQLConnectionPool/write(_:)`` tries
    /// again on a new connection.
    ///
    /// - Returns: one result per statement.
    /// - Throws: the first failing statement's error (the transaction is then failed, and
    ///   rolled back by ``transaction(_:_:)``); an error of the `COMMIT`; or
    ///   ``ObjectGraphError/connectionLost(server:database:message:)``, which once the
    ///   pipeline is sent means that the outcome is unknown.
    func executeAndCommit(_ statements: [PreparedCall]) throws(ObjectGraphError) -> [PostgreSQLResult] {
        let handle = try liveHandle()
        precondition(deferredBegin != nil || PQtransactionStatus(handle) == PQTRANS_INTRANS, "executeAndCommit ends an open, healthy transaction")
        if let begin = deferredBegin, Self.sessionEndedWhileIdle(handle) {
            throw failure(of: nil, doing: begin)  // the BEGIN stays deferred: nothing was sent
        }
        let begin = deferredBegin
        deferredBegin = nil
        var sends = sends(of: statements, after: begin, on: handle)
        sends.append(("COMMIT", { PQsendQueryParams(handle, "COMMIT", 0, nil, nil, nil, nil, 1) }))
        let start = ContinuousClock.now
        defer { logSent(statements, since: start) }
        let results = try pipeline(sends, on: handle)
        if results.last?.commandStatus != "COMMIT" {
            throw .postgreSQL(server: origin.server, database: origin.database, code: "25P02",
                              message: "the transaction had failed and was rolled back: nothing of it was written")
        }
        return Array(results.dropFirst(begin == nil ? 0 : 1).dropLast())
    }

    /// Runs `statements` in order in the open transaction (or each alone outside one), in one
    /// pipeline with the transaction's `BEGIN` if it is still deferred: one round trip for all.
    /// What a change watcher's read sends ahead (see ``PostgreSQLStoreConnection/sendAhead(_:)``).
    ///
    /// - Returns: one result per statement.
    /// - Throws: the first failing statement's error (the server skips the ones after it, and
    ///   a transaction open is then failed).
    func executeTogether(_ statements: [PreparedCall]) throws(ObjectGraphError) -> [PostgreSQLResult] {
        let handle = try liveHandle()
        let begin = deferredBegin
        deferredBegin = nil
        let sends = sends(of: statements, after: begin, on: handle)
        let start = ContinuousClock.now
        defer { logSent(statements, since: start, committing: false) }
        guard let begin else { return try pipeline(sends, on: handle) }
        return Array(try beginning(with: begin) { () throws(ObjectGraphError) -> [PostgreSQLResult] in try pipeline(sends, on: handle) }.dropFirst())
    }

    /// What ``pipeline(_:on:)`` sends for `statements`, after `begin` when there is one.
    private func sends(of statements: [PreparedCall], after begin: String?, on handle: OpaquePointer) -> [(sql: String, send: () -> Int32)] {
        var sends: [(sql: String, send: () -> Int32)] = []
        if let begin { sends.append((begin, { PQsendQueryParams(handle, begin, 0, nil, nil, nil, nil, 1) })) }
        for call in statements {
            sends.append((call.sql, { [self] in
                (try? withParameters(call.parameters) { values, lengths, formats in
                    PQsendQueryPrepared(handle, call.name, Int32(call.parameters.count), values, lengths, formats, 1)
                }) ?? 0
            }))
        }
        return sends
    }

    /// Whether the server ended the session while the connection sat idle: what arrived since
    /// (its goodbye, then the end of the stream) is read without waiting.
    private static func sessionEndedWhileIdle(_ handle: OpaquePointer) -> Bool {
        // The first read may only take the server's last message; the second meets the end.
        for _ in 0..<2 {
            if PQconsumeInput(handle) == 0 { return true }
        }
        return PQstatus(handle) == CONNECTION_BAD
    }

    /// Logs statements sent together, each with the time from `start` to the end of all (the
    /// last with `; COMMIT` when `committing`).
    private func logSent(_ statements: [PreparedCall], since start: ContinuousClock.Instant, committing: Bool = true) {
        guard let log, log.isEnabled else { return }
        let duration = ContinuousClock.now - start
        for (index, call) in statements.enumerated() {
            let sql = committing && index == statements.count - 1 ? call.sql + "; COMMIT" : call.sql
            let expanded = connectionString.scrub(PostgreSQLStatementText.expanding(sql, with: call.parameters))
            log.record(SQLLogEntry(sql: sql, expandedSQL: expanded, duration: duration, evaluatedInMemory: logNote))
        }
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

    /// Sends `statements` (each its text, for errors, and the libpq call that sends it) in
    /// libpq's pipeline mode and reads their results: one round trip for all.
    ///
    /// - Returns: one result per statement.
    /// - Throws: the first statement's error (the server skips the ones after it); or, when the
    ///   connection was lost, ``ObjectGraphError/connectionLost(server:database:message:)``
    ///   naming the last statement (a `COMMIT` says its outcome is unknown).
    func pipeline(_ statements: [(sql: String, send: () -> Int32)], on handle: OpaquePointer) throws(ObjectGraphError) -> [PostgreSQLResult] {
        let last = statements.last?.sql ?? ""
        guard PQenterPipelineMode(handle) == 1 else { throw failure(of: nil, doing: last) }
        guard statements.allSatisfy({ $0.send() == 1 }), PQpipelineSync(handle) == 1 else {
            let error = failure(of: nil, doing: last)
            if let handle = self.handle { Self.pipelineResults(of: handle, statements: statements.count).forEach { PQclear($0) } }
            throw error
        }
        let results = Self.pipelineResults(of: handle, statements: statements.count)
        guard results.count == statements.count, PQstatus(handle) == CONNECTION_OK else {
            let error = failure(of: results.first, doing: last)
            results.forEach { PQclear($0) }
            throw error
        }
        var checked: [PostgreSQLResult] = []
        for (index, result) in results.enumerated() {
            do throws(ObjectGraphError) {
                checked.append(try check(result, doing: statements[index].sql))
            } catch {
                results[(index + 1)...].forEach { PQclear($0) }
                throw error
            }
        }
        return checked
    }

    /// Reads a pipeline's results up to its sync point (one per statement sent) and leaves
    /// pipeline mode.
    static func pipelineResults(of handle: OpaquePointer, statements: Int) -> [OpaquePointer] {
        var results: [OpaquePointer] = []
        var ends = 0
        while PQstatus(handle) == CONNECTION_OK {
            guard let result = PQgetResult(handle) else {
                // Each statement's results end with a NULL; more NULLs than statements means
                // the sync point will not come.
                ends += 1
                if ends > statements { break }
                continue
            }
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            results.append(result)
        }
        PQexitPipelineMode(handle)
        return results
    }
}
