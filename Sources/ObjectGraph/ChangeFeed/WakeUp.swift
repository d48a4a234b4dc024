/// What a wake-up says about the commit behind it.
enum WakeUp: Sendable, Equatable {
    /// Something may have been committed: look at the store.
    case look
    /// The history transaction `token` of the store was committed (PostgreSQL's `NOTIFY`
    /// carries it): a reader that already accounts for it has nothing to look at, and one that
    /// does not reads the history at once. `written` names, when the commit was small, the
    /// primary keys of the rows it inserted or updated, by entity: a hint that lets the reader
    /// ask for those rows together with the history (the history still decides what is read).
    case committed(token: Int64, written: [String: [Int64]] = [:])

    /// What a `NOTIFY` of the store's channel says: a save sends its token, then possibly the
    /// rows it wrote (see ``notificationSuffix(for:)``); a write of another program (through the
    /// tables' triggers) sends nothing. A hint that cannot be read is dropped, never the token.
    init(notificationPayload payload: String) {
        let parts = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard let first = parts.first, let token = Int64(first) else {
            self = .look
            return
        }
        var written: [String: [Int64]] = [:]
        for part in parts.dropFirst() {
            let sides = part.split(separator: "=", omittingEmptySubsequences: false)
            let keys = sides.count == 2 ? sides[1].split(separator: ",").compactMap { Int64($0) } : []
            guard sides.count == 2, !sides[0].isEmpty, !keys.isEmpty, keys.count == sides[1].split(separator: ",").count else {
                written = [:]
                break
            }
            written[String(sides[0]), default: []] += keys
        }
        self = .committed(token: token, written: written)
    }

    /// The most keys a notification names; a save that wrote more names none.
    static let mostNamedKeys = 100

    /// What a save that wrote `record` appends to its token in its `NOTIFY`: ` Entity=1,2`
    /// per entity whose rows it inserted or updated, or nothing when it wrote more than
    /// ``mostNamedKeys`` rows or an entity's name could not be read back.
    static func notificationSuffix(for record: HistoryRecord) -> String {
        var keys: [String: [Int64]] = [:]
        var order: [String] = []
        var count = 0
        for group in record.groups where group.kind != .delete {
            guard !group.entityName.contains(where: { $0 == " " || $0 == "=" || $0 == "," }) else { return "" }
            if keys[group.entityName] == nil { order.append(group.entityName) }
            keys[group.entityName, default: []] += group.primaryKeys
            count += group.primaryKeys.count
            if count > mostNamedKeys { return "" }
        }
        return order.map { name in " \(name)=" + keys[name]!.map(String.init).joined(separator: ",") }.joined()
    }
}
