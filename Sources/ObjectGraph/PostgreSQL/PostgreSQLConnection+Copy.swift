import CLibPQ
import Foundation

/// Rows streamed to the server with `COPY … FROM STDIN (FORMAT binary)`: no statement to parse
/// and no parameters to bind per row, the fastest way PostgreSQL takes many rows in.
extension PostgreSQLConnection {
    /// The column types whose binary form ``PostgreSQLValue`` writes as `COPY` reads it
    /// (`numeric` travels as text, so a table with such a column is not copied).
    static let binaryCopyTypes: Set<PostgreSQLType> = [.bool, .int8, .float8, .text, .bytea, .uuid, .jsonb, .timestamptz]

    /// Runs `sql`, a `COPY … FROM STDIN (FORMAT binary)`, with the rows `body` writes into
    /// `rows`: each row's values in the statement's column order, each already of its column's
    /// type (see ``binaryCopyTypes``).
    ///
    /// The rows go in the transaction open on the connection. A row the server refuses fails
    /// the call with its error, as ``execute(_:_:)`` would, and nothing of the `COPY` is written
    /// (a transaction open is failed); so does an error `body` throws, after the `COPY` is ended.
    /// In the SQL log the statement appears once, its duration the whole copy's.
    func copyIn(_ sql: String, _ body: (_ rows: inout PostgreSQLCopyRows) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        let handle = try liveHandle(beginning: true)
        let started = ContinuousClock.now
        let opening = PQexec(handle, sql)
        guard let opening, PQresultStatus(opening) == PGRES_COPY_IN else {
            let error = failure(of: opening, doing: sql)
            if let opening { PQclear(opening) }
            throw error
        }
        PQclear(opening)
        var rows = PostgreSQLCopyRows(handle: handle)
        var stopped: ObjectGraphError?
        do throws(ObjectGraphError) {
            try body(&rows)
            rows.finish()
            if rows.failed { throw failure(of: nil, doing: sql) }
        } catch {
            stopped = error
        }
        // A lost connection is dropped by `failure(of:doing:)`: nothing is left to read.
        guard self.handle == handle else { throw stopped ?? failure(of: nil, doing: sql) }
        let ended = PQputCopyEnd(handle, stopped == nil ? nil : "the client stopped the copy") == 1
        var refused: OpaquePointer?
        while let result = PQgetResult(handle) {
            if refused == nil, PQresultStatus(result) != PGRES_COMMAND_OK { refused = result } else { PQclear(result) }
        }
        defer { if let refused { PQclear(refused) } }
        if let log, log.isEnabled {
            log.record(SQLLogEntry(sql: sql, expandedSQL: sql, duration: ContinuousClock.now - started, evaluatedInMemory: logNote))
        }
        if let stopped { throw stopped }
        if let refused { throw failure(of: refused, doing: sql) }
        guard ended, PQstatus(handle) == CONNECTION_OK else { throw failure(of: nil, doing: sql) }
    }
}

/// The rows of a binary `COPY` (see ``PostgreSQLConnection/copyIn(_:_:)``), written into one
/// buffer that is handed to libpq every 64 KiB: no array per row or per value.
struct PostgreSQLCopyRows {
    private let handle: OpaquePointer
    /// Starts with the format's signature, `PGCOPY\n\377\r\n\0`, no flags and no header extension.
    private var buffer: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [UInt8](repeating: 0, count: 8)
    /// Set when libpq refused data (a lost connection): later rows are dropped.
    private(set) var failed = false

    /// How many bytes of rows are handed to libpq at a time.
    private static let chunk = 64 * 1_024

    fileprivate init(handle: OpaquePointer) {
        self.handle = handle
        buffer.reserveCapacity(Self.chunk + 1_024)
    }

    /// Starts a row of `fields` values; ``append(_:)`` each of them next.
    mutating func startRow(fields: Int) {
        if buffer.count >= Self.chunk { send() }
        buffer.appendBigEndian(UInt16(fields))
    }

    /// The row's next value: its length, then its binary form (a length of -1 for `NULL`).
    mutating func append(_ value: PostgreSQLValue) {
        if case .null = value {
            buffer.appendBigEndian(UInt32.max)
            return
        }
        let lengthAt = buffer.count
        buffer.appendBigEndian(UInt32(0))
        value.append(to: &buffer)
        let length = UInt32(buffer.count - lengthAt - 4)
        for offset in 0..<4 { buffer[lengthAt + offset] = UInt8(truncatingIfNeeded: length >> (24 - 8 * offset)) }
    }

    /// Ends the rows with the format's trailer (a field count of -1) and hands the rest over.
    fileprivate mutating func finish() {
        buffer.appendBigEndian(UInt16.max)
        send()
    }

    private mutating func send() {
        if !failed {
            let handle = handle
            failed = buffer.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) != 1 }
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
