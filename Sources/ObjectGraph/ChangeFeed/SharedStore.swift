/// A store that other containers and processes may write (a SQLite file; later a PostgreSQL
/// database): what the change feed needs to follow them. The history itself comes from
/// ``StoreHistory``, which every store has.
protocol SharedStore: PersistentStore {
    /// A watcher with a connection of its own (see ``StoreChangeWatcher``).
    func makeChangeWatcher() throws(ObjectGraphError) -> any StoreChangeWatcher
    /// The channel by which the store's writers wake its readers, if it has one.
    func makeWakeUpChannel() -> (any WakeUpChannel)?
    /// The history's state and the store's count of its own writes, in one read (where the
    /// change feed starts).
    func historyStateAndOwnWrites() throws(ObjectGraphError) -> (state: HistoryState, writes: Int64)
}

/// Looks at a shared store for the change feed, through a connection of its own.
protocol StoreChangeWatcher: AnyObject, Sendable {
    /// Whether another connection committed since the last look, and the history then. Cheap
    /// when nothing was committed.
    func look() throws(ObjectGraphError) -> StoreLook
    /// What the transactions after `token` changed, except those in `own`, as one save: in one
    /// read of the store, the history first, then the rows of the inserted and updated objects
    /// whose entity `interest` names (`nil`: every entity), as the same read sees them.
    ///
    /// `interest` is asked once the read has begun, so that an entity a context starts to hold
    /// before that is included, and one it starts to hold after is read by the context itself
    /// as it is now.
    ///
    /// `written` is a hint of the rows to read, by entity (a wake-up's, see
    /// ``WakeUp/committed(token:written:)``): a watcher may ask for them together with the
    /// history. The history alone decides what is read and returned.
    ///
    /// - Throws: ``ObjectGraphError/historyTokenExpired(path:token:oldestAvailable:)`` when the
    ///   history after `token` is gone.
    func changes(
        after token: Int64, storeIdentifier: String, own: Set<Int64>, written: [String: [Int64]], interest: () -> Set<String>?
    ) throws(ObjectGraphError) -> RemoteChanges
    /// Closes the connection; later calls throw ``ObjectGraphError/storeClosed(path:)``.
    func close()
}

/// What a ``StoreChangeWatcher`` saw.
struct StoreLook: Sendable {
    /// Whether another connection committed since the previous look (always, the first time).
    let committedElsewhere: Bool
    /// The history now, when it was read (`nil` when nothing was committed elsewhere).
    let state: HistoryState?
    /// The store's count of its own write transactions (see ``HistorySQL``), when read.
    let ownWrites: Int64?
}

/// What other writers changed, coalesced over their transactions, for the contexts to merge as
/// one save.
struct RemoteChanges: Sendable {
    /// The newest transaction read: the reader's token from now on.
    var lastToken: Int64
    /// The history's state as the read saw it, and the store's count of its own writes then.
    let state: HistoryState
    let ownWrites: Int64
    /// Whether any transaction was another writer's.
    var readOthers = false
    var insertedIDs: Set<ObjectID> = []
    var updatedIDs: Set<ObjectID> = []
    var deletedIDs: Set<ObjectID> = []
    var changedKeys: [ObjectID: Set<String>] = [:]
    /// The current rows of the inserted and updated objects the interest covers.
    var rows: [StoredRow] = []

    var isEmpty: Bool { insertedIDs.isEmpty && updatedIDs.isEmpty && deletedIDs.isEmpty }

    init(state: HistoryState, ownWrites: Int64) {
        lastToken = state.lastToken
        self.state = state
        self.ownWrites = ownWrites
    }

    /// Folds one transaction in, in token order. An object inserted and deleted within the
    /// changes is still reported deleted: a context may have fetched it in between.
    mutating func add(_ record: HistoryRecord, entity: (String) -> EntityDescription?) {
        readOthers = true
        for group in record.groups {
            guard let entity = entity(group.entityName) else { continue }  // not in this model
            for key in group.primaryKeys {
                let id = ObjectID(entity: entity, primaryKey: key)
                switch group.kind {
                case .insert:
                    insertedIDs.insert(id)
                case .update:
                    if !insertedIDs.contains(id) { updatedIDs.insert(id) }
                    changedKeys[id, default: []].formUnion(group.keys)
                case .delete:
                    insertedIDs.remove(id)
                    updatedIDs.remove(id)
                    changedKeys[id] = nil
                    deletedIDs.insert(id)
                }
            }
        }
    }

    /// Takes the rows read for the inserted and updated objects; one that has no row any more
    /// was deleted since (by a transaction of this container's own, already merged).
    mutating func take(_ found: [StoredRow], asked: [ObjectID]) {
        rows = found
        guard found.count < asked.count else { return }
        let present = Set(found.map(\.id))
        for id in asked where !present.contains(id) {
            insertedIDs.remove(id)
            updatedIDs.remove(id)
            changedKeys[id] = nil
            deletedIDs.insert(id)
        }
    }
}
