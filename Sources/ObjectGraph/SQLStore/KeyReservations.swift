/// The primary keys a store has taken from its keys table and not handed out yet, per entity
/// hierarchy. Blocks grow while a container keeps inserting, so that a bulk insert costs a
/// handful of committed transactions instead of one per 256 objects; keys left unused when the
/// store closes are simply skipped. Not thread-safe: its store holds a lock around it.
struct KeyReservations {
    /// Smallest and largest number of keys taken from the table at once.
    static let blockRange = 256...16_384

    private var reserved: [String: ClosedRange<Int64>] = [:]
    private var blockSizes: [String: Int] = [:]

    /// `count` keys for the hierarchy of `root`: from the block reserved earlier if it holds
    /// enough, else from a new block, whose size `reserveBlock` is given and whose next key
    /// after it `reserveBlock` returns (having moved the table's counter past it).
    mutating func take(
        _ count: Int, root: String, reserveBlock: (Int64) throws(ObjectGraphError) -> Int64
    ) throws(ObjectGraphError) -> ClosedRange<Int64> {
        let count = Int64(max(count, 1))
        if let block = reserved[root], Int64(block.count) >= count {
            return take(count, from: block, root: root)
        }
        let blockSize = max(Int64(blockSizes[root] ?? Self.blockRange.lowerBound), count)
        blockSizes[root] = min(Int(blockSize) * 2, Self.blockRange.upperBound)
        let next = try reserveBlock(blockSize)
        return take(count, from: (next - blockSize)...(next - 1), root: root)
    }

    /// The first `count` keys of `range`; the rest stays reserved for the next call.
    private mutating func take(_ count: Int64, from range: ClosedRange<Int64>, root: String) -> ClosedRange<Int64> {
        let keys = range.lowerBound...(range.lowerBound + count - 1)
        reserved[root] = keys.upperBound < range.upperBound ? (keys.upperBound + 1)...range.upperBound : nil
        return keys
    }
}

extension SQLStore {
    /// Moves the keys table's counter of `root`'s hierarchy `blockSize` keys on, in the write
    /// transaction open on `connection`; returns the key after the block.
    func reserveKeyBlock(of root: String, blockSize: Int64, on connection: Connection) throws(ObjectGraphError) -> Int64 {
        let sql = schema.sql
        let statement = try connection.statement(
            sql.update(SQLSchema.keysTableName, set: ["next = next + \(sql.parameter(1))"], where: "root = \(sql.parameter(2))") + " RETURNING next")
        defer { statement.reset() }
        try statement.bind(blockSize, at: 1)
        try statement.bind(root, at: 2)
        guard try statement.step() else {
            throw .corruptStore(path: path, message: "the keys table has no row for \(root)")
        }
        let next = statement.int64(at: 0)
        // A damaged row can hold any number; keys start at 1 and the block must fit.
        guard next > blockSize else {
            throw .corruptStore(path: path, message: "the keys table holds \(next) as the next key of \(root)")
        }
        return next
    }
}
