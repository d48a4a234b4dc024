/// A store that reads through another and refuses to write: the previous model's view of the
/// file during a migration stage.
final class ReadOnlyStore: PersistentStore {
    let base: any PersistentStore

    init(base: any PersistentStore) {
        self.base = base
    }

    var path: String { base.path }

    /// Reads in SQL as the base store does.
    var queryEngine: (any StoreQueryEngine)? { base.queryEngine }

    func allocatePrimaryKeys(root: EntityDescription, count: Int) throws(ObjectGraphError) -> ClosedRange<Int64> {
        throw Self.refusal
    }

    func rows(of entities: [EntityDescription]) throws(ObjectGraphError) -> [StoredRow] {
        try base.rows(of: entities)
    }

    func row(for id: ObjectID) throws(ObjectGraphError) -> StoredRow? {
        try base.row(for: id)
    }

    func targets(of id: ObjectID, relationship: PropertyDescription) throws(ObjectGraphError) -> [ObjectID] {
        try base.targets(of: id, relationship: relationship)
    }

    func execute(_ batch: StoreBatch) throws -> StoreBatchResult {
        throw Self.refusal
    }

    /// The base store closes with its container.
    func close() {}

    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> StoreSaveResult {
        throw Self.refusal
    }

    // History: read through the base store; nothing is written during a stage.

    func historyState() throws(ObjectGraphError) -> HistoryState {
        try base.historyState()
    }

    func historyTransactions(after token: Int64?, storeIdentifier: String?, wants: (String) -> Bool) throws(ObjectGraphError) -> [StoredTransaction] {
        try base.historyTransactions(after: token, storeIdentifier: storeIdentifier, wants: wants)
    }

    func deleteHistory(through token: Int64) throws(ObjectGraphError) {
        throw Self.refusal
    }

    func recordReader(_ progress: ReaderProgress, trimming: HistoryTrimming, listeners: ReaderListeners) throws(ObjectGraphError) {
        throw Self.refusal
    }

    func removeReader(named name: String) throws(ObjectGraphError) {
        throw Self.refusal
    }

    func historyReaders() throws(ObjectGraphError) -> [HistoryReader] {
        try base.historyReaders()
    }

    private static let refusal = ObjectGraphError.invalidMigrationPlan(
        "the previous model's objects are read-only during a migration stage; make changes through migration.new")
}
