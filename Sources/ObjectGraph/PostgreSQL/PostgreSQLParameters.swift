/// One statement's parameters as libpq takes them: every value's bytes in one buffer, with
/// their lengths and formats (``PostgreSQLValue/format``), `NULL` as a missing value.
///
/// Reusable: ``encode(_:)`` keeps the buffers' capacity, so that a bulk insert sending many
/// statements of thousands of values allocates nothing per value or per statement.
///
/// ```swift
/// var parameters = PostgreSQLParameters()
/// parameters.encode([.int64(1), .text("a"), .null])
/// parameters.withPointers { values, lengths, formats in PQexecPrepared(…, 3, values, lengths, formats, 1) }
/// ```
struct PostgreSQLParameters {
    /// Each value followed by a zero byte: libpq reads a text-format value (a numeric) as a C
    /// string.
    private var bytes: [UInt8] = []
    /// Where each value starts in ``bytes``; `-1` for `NULL`.
    private var starts: [Int] = []
    private(set) var lengths: [Int32] = []
    private(set) var formats: [Int32] = []
    private var pointers: [UnsafePointer<CChar>?] = []

    var count: Int { starts.count }

    /// Replaces the parameters with `values`.
    mutating func encode(_ values: [PostgreSQLValue]) {
        bytes.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        formats.removeAll(keepingCapacity: true)
        for value in values {
            formats.append(value.format)
            if case .null = value {
                starts.append(-1)
                lengths.append(0)
                continue
            }
            let start = bytes.count
            value.append(to: &bytes)
            starts.append(start)
            lengths.append(Int32(bytes.count - start))
            bytes.append(0)
        }
    }

    /// Calls `body` with libpq's arrays: the values (NULL for `NULL`), their lengths and formats,
    /// valid during the call.
    mutating func withPointers<Result, Failure: Error>(
        _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pointers.removeAll(keepingCapacity: true)
        let result: Result = try bytes.withUnsafeBufferPointer { buffer throws(Failure) -> Result in
            let base = UnsafeRawPointer(buffer.baseAddress)
            for start in starts {
                pointers.append(start < 0 ? nil : base.map { $0.advanced(by: start).assumingMemoryBound(to: CChar.self) })
            }
            return try body(pointers, lengths, formats)
        }
        return result
    }
}
