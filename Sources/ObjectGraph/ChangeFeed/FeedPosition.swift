/// Where a container's change feed stands in its store's history, and what to do after a look
/// at the store: pure, no locks and no callbacks, tested alone (``ChangeFeed`` is the shell
/// that holds it under a lock and acts on its answers).
struct FeedPosition: Sendable, Equatable {
    /// What a look at the store calls for.
    enum Action: Equatable {
        /// Nothing was committed that the history does not already account for.
        case nothing
        /// Other writers' transactions wait after ``token``: read and merge them.
        case follow
        /// The store changed in a way the history cannot describe (a write that bypassed the
        /// store, or a store erased and made anew): every context reads its objects again and
        /// live results fetch again.
        case reset
    }

    /// The store whose history ``token`` counts in.
    private(set) var storeIdentifier: String
    /// Every transaction up to it is merged, or was this container's own.
    private(set) var token: Int64
    /// This container's own transactions after ``token``: the feed skips them, since the
    /// container's contexts had them directly.
    private(set) var own: Set<Int64> = []
    /// The store's count of its own writes at the last look (used only while the file has no
    /// history tables, which the writes of other programs cannot be counted without).
    private(set) var ownWrites: Int64
    /// The store's count of other programs' writes (``HistoryState/foreignWrites``) at the last
    /// look.
    private(set) var foreignWrites: Int64
    /// Set when this container writes without history (``ChangeFeedOptions/recordsHistory``
    /// off, so that its writes count as another program's): the next change seen may be its
    /// own, and is not taken for a foreign write.
    private(set) var wroteWithoutHistory = false

    init(state: HistoryState, ownWrites: Int64) {
        storeIdentifier = state.storeIdentifier
        token = state.lastToken
        self.ownWrites = ownWrites
        foreignWrites = state.foreignWrites
    }

    /// Notes a write of this container's own that records no history, before and after it.
    mutating func noteOwnWriteWithoutHistory() {
        wroteWithoutHistory = true
    }

    /// Notes a transaction of this container's own, in commit order.
    mutating func noteOwn(_ transaction: Int64) {
        guard transaction > token else { return }
        if transaction == token + 1, own.isEmpty {
            token = transaction  // nothing of anyone else's in between: no need to read it
        } else {
            own.insert(transaction)
        }
    }

    /// What to do after a look that found another connection's commit (with the history as it
    /// is now and the store's count of its own writes).
    ///
    /// A write of another program moves ``HistoryState/foreignWrites`` (triggers count it, in
    /// its own transaction), however many of the store's own commits surround it, and a
    /// checkpoint moves nothing: so the count alone says whether the history tells everything.
    /// A file without history tables has no count yet: there a commit that moved neither the
    /// store's own count nor the history bypassed it.
    mutating func decide(after state: HistoryState, ownWrites writes: Int64) -> Action {
        let maybeOwn = wroteWithoutHistory
        defer {
            ownWrites = writes
            foreignWrites = state.foreignWrites
            wroteWithoutHistory = false
        }
        // A file without history when the feed started gets it with its first write.
        if storeIdentifier.isEmpty { storeIdentifier = state.storeIdentifier }
        if state.storeIdentifier != storeIdentifier { return .reset }
        if state.storeIdentifier.isEmpty { return writes == ownWrites && !maybeOwn ? .reset : .nothing }
        if state.foreignWrites != foreignWrites, !maybeOwn { return .reset }
        return state.lastToken > token ? .follow : .nothing
    }

    /// Whether `state` shows anything the position has not accounted for: another store, other
    /// writers' transactions or other programs' writes. (A file without history has nothing to
    /// compare: always true.)
    func hasMoved(comparedWith state: HistoryState) -> Bool {
        storeIdentifier.isEmpty || state.storeIdentifier != storeIdentifier || state.foreignWrites != foreignWrites || state.lastToken > token
    }

    /// Whether the history transaction `transaction` is read or merged already, or was this
    /// container's own: a wake-up for it calls for nothing.
    func accountsFor(_ transaction: Int64) -> Bool {
        transaction <= token || own.contains(transaction)
    }

    /// Moves past everything up to `lastToken`, read and merged.
    mutating func advance(to lastToken: Int64) {
        guard lastToken > token else { return }
        token = lastToken
        own = own.filter { $0 > lastToken }
    }

    /// Starts over at the store's current history, after a reset.
    mutating func restart(at state: HistoryState, ownWrites writes: Int64?) {
        storeIdentifier = state.storeIdentifier
        token = state.lastToken
        own = []
        foreignWrites = state.foreignWrites
        if let writes { ownWrites = writes }
    }
}
