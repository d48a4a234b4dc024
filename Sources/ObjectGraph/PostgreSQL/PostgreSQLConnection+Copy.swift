import CLibPQ
import Foundation

/// Rows streamed to the server with `COPY … FROM STDIN (FORMAT binary)`: no statement to parse
/// and no parameters to bind per row, the fastest way PostgreSQL takes many rows in.
extension PostgreSQLConnection {
    /// The column types whose binary form ``PostgreSQLValue`` writes as `COPY` reads it
    /// (`numeric` travels as text, so a table with such a column is not copied).
    static let binaryCopyTypes: Set<PostgreSQLType> = [.bool, .int8, .float8, .text, .bytea, .uuid, .jsonb, .timestamptz]

    /// Runs `sql`, a `COPY … FROM STDIN (FORMAT binary)`, with the rows `body` writes through
    /// `write`: one call a row, its values in the statement's column order, each already of its
    /// column's type (see ``binaryCopyTypes``).
    ///
    /// The rows go in the transaction open on the connection. A row the server refuses fails
    /// the call with its error, as ``execute(_:_:)`` would, and nothing of the `COPY` is written
    /// (a transaction open is failed); so does an error `body` throws, after the `COPY` is ended.
    /// In the SQL log the statement appears once, its duration the whole copy's.
    func copyIn(
        _ sql: String, _ body: (_ write: ([PostgreSQLValue]) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) -> Void
    ) throws(ObjectGraphError) {
        let handle = try liveHandle()
        let started = ContinuousClock.now
        let opening = PQexec(handle, sql)
        guard let opening, PQresultStatus(opening) == PGRES_COPY_IN else {
            let error = failure(of: opening, doing: sql)
            if let opening { PQclear(opening) }
            throw error
        }
        PQclear(opening)
        var buffer: [UInt8] = Self.binaryCopyHeader
        buffer.reserveCapacity(Self.copyChunk + 1_024)
        func send() -> Bool {
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) == 1 }
            }
        }
        var stopped: ObjectGraphError?
        var sent = true
        do throws(ObjectGraphError) {
            try body { values throws(ObjectGraphError) in
                guard sent else { throw failure(of: nil, doing: sql) }
                Self.appendBigEndian(UInt16(values.count), to: &buffer)
                for value in values {
                    if case .null = value {
                        Self.appendBigEndian(UInt32(bitPattern: -1), to: &buffer)
                        continue
                    }
                    let lengthAt = buffer.count
                    Self.appendBigEndian(UInt32(0), to: &buffer)
                    value.append(to: &buffer)
                    let length = UInt32(buffer.count - lengthAt - 4).bigEndian
                    withUnsafeBytes(of: length) { buffer.replaceSubrange(lengthAt..<lengthAt + 4, with: $0) }
                }
                if buffer.count >= Self.copyChunk { sent = send() }
            }
            Self.appendBigEndian(UInt16.max, to: &buffer)  // the trailer: a field count of -1
            sent = sent && send()
            if !sent { throw failure(of: nil, doing: sql) }
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

    /// How many bytes of rows are handed to libpq at a time.
    private static let copyChunk = 64 * 1_024

    /// `PGCOPY\n\377\r\n\0`, then no flags and no header extension.
    private static let binaryCopyHeader: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [UInt8](repeating: 0, count: 8)

    private static func appendBigEndian<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
