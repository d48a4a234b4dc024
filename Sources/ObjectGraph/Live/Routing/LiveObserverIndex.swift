import Streams
import Synchronization

/// The live observers of one context, and the routing of its changes to them: each batch
/// (``ObjectsDidChange``) reaches an observer restricted to the objects that concern it (see
/// ``ObserverRoutingTable``), and not at all when none does.
///
/// Observers are added on the context's queue and removed from any thread (a controller may be
/// released anywhere); batches are routed on the queue. The table is read under the lock, and
/// observers are called after unlocking, each only if it is still registered when its turn
/// comes (one removed by an earlier observer of the same batch hears nothing more). After a
/// batch has reached every observer, the batch-end hooks run: an observation made of several
/// observers delivers there, with all of them at the same state.
final class LiveObserverIndex: @unchecked Sendable {
    // `lock` protects `table`, `receivers`, `batchEnds` and `nextToken`. `dispatchDepth` is
    // confined to the context's queue, where batches are dispatched.
    private let lock = Lock()
    private var table = ObserverRoutingTable()
    private var receivers: [Int: (ObjectsDidChange) -> Void] = [:]
    private var batchEnds: [Int: () -> Void] = [:]
    private var nextToken = 0
    private var dispatchDepth = 0
    /// How many (observer, changed object) pairs batches have been routed to: the work a batch
    /// costs the observers. Tests read it.
    let routedPairs = Atomic<Int>(0)

    /// Registers an observer; `receive` is called on the context's queue with its share of each
    /// batch. Returns its token.
    func add(_ interest: ObserverInterest, receive: @escaping (ObjectsDidChange) -> Void) -> Int {
        lock.withLock {
            nextToken += 1
            table.add(nextToken, interest)
            receivers[nextToken] = receive
            return nextToken
        }
    }

    /// Ends an observer's registration; its closure is released after unlocking.
    func remove(_ token: Int) {
        let released = lock.withLock {
            table.remove(token)
            return receivers.removeValue(forKey: token)
        }
        withExtendedLifetime(released) {}
    }

    /// Registers `body`, called on the context's queue after each batch that reached some
    /// observer has reached them all. Returns its token.
    func addBatchEnd(_ body: @escaping () -> Void) -> Int {
        lock.withLock {
            nextToken += 1
            batchEnds[nextToken] = body
            return nextToken
        }
    }

    /// Ends a batch-end hook; its closure is released after unlocking.
    func removeBatchEnd(_ token: Int) {
        let released = lock.withLock { batchEnds.removeValue(forKey: token) }
        withExtendedLifetime(released) {}
    }

    /// Whether a batch is being dispatched (on the context's queue, where it is read): the
    /// observers have not all heard it yet.
    var isDispatching: Bool { dispatchDepth > 0 }

    /// See ``ObserverRoutingTable/hold(_:release:by:)``.
    func hold(_ taken: some Sequence<ObjectID>, release released: some Sequence<ObjectID>, by token: Int) {
        lock.withLock { table.hold(taken, release: released, by: token) }
    }

    /// See ``ObserverRoutingTable/replaceHoldings(with:by:)``.
    func replaceHoldings(with ids: some Sequence<ObjectID>, by token: Int) {
        lock.withLock { table.replaceHoldings(with: ids, by: token) }
    }

    /// The entities some observer follows.
    var entityNames: Set<String> { lock.withLock { table.entityNames } }

    /// Whether a merge must bring in the object of `row`, which the context does not hold.
    func mayConcern(_ row: StoredRow) -> Bool {
        lock.withLock { table.mayConcern(row) }
    }

    /// Hands each concerned observer its share of `change`, in the order they were added.
    /// A change that asks for a refetch (``ObjectsDidChange/requiresRefetch``) reaches every
    /// observer whole: what it lists is not all that changed.
    func dispatch(_ change: ObjectsDidChange) {
        let routes: [ObserverRoutingTable.Route] = lock.withLock {
            if table.count == 0 { return [] }
            return change.requiresRefetch ? table.everyObserver(for: change) : table.routes(for: change)
        }
        guard !routes.isEmpty else { return }
        let total = change.inserted.count + change.updated.count + change.refreshed.count + change.deleted.count
        var previousValueIndex: [ObjectIdentifier: Int]?
        dispatchDepth += 1
        for route in routes {
            guard let receive = lock.withLock({ receivers[route.token] }) else { continue }
            routedPairs.add(route.count, ordering: .relaxed)
            receive(route.count == total ? change : change.restricted(to: route, previousValueIndex: &previousValueIndex))
        }
        dispatchDepth -= 1
        guard dispatchDepth == 0 else { return }  // the outermost batch ends last
        let hooks = lock.withLock { batchEnds.sorted { $0.key < $1.key }.map(\.value) }
        for hook in hooks { hook() }
    }
}

/// A live observer's registration with its context's ``LiveObserverIndex``: cancelling it, or
/// letting it go, ends the registration.
final class LiveObservation: Cancellable, Sendable {
    private let index: LiveObserverIndex
    let token: Int
    private let onEnd: @Sendable () -> Void
    private let ended = Atomic<Bool>(false)

    init(index: LiveObserverIndex, token: Int, onEnd: @escaping @Sendable () -> Void) {
        self.index = index
        self.token = token
        self.onEnd = onEnd
    }

    /// Records which objects the observer took into its results and which it let go.
    func hold(_ taken: some Sequence<ObjectID>, release released: some Sequence<ObjectID>) {
        index.hold(taken, release: released, by: token)
    }

    /// Records that the observer's results are exactly `ids` now.
    func replaceHoldings(with ids: some Sequence<ObjectID>) {
        index.replaceHoldings(with: ids, by: token)
    }

    func cancel() {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        index.remove(token)
        onEnd()
    }

    deinit { cancel() }
}

extension ObjectsDidChange {
    /// This batch with only the objects of `route`, and their previous values.
    /// `previousValueIndex` (where each object's previous values are) is made by the first call
    /// and reused by the next ones of the same batch.
    func restricted(to route: ObserverRoutingTable.Route, previousValueIndex: inout [ObjectIdentifier: Int]?) -> ObjectsDidChange {
        if previousValueIndex == nil {
            var index: [ObjectIdentifier: Int] = [:]
            index.reserveCapacity(previousValues.count)
            for (offset, entry) in previousValues.enumerated() { index[ObjectIdentifier(entry.object)] = offset }
            previousValueIndex = index
        }
        var previous: [PreviousValues] = []
        for objects in [route.inserted, route.updated, route.refreshed, route.deleted] {
            for object in objects {
                if let offset = previousValueIndex?[ObjectIdentifier(object)] { previous.append(previousValues[offset]) }
            }
        }
        return ObjectsDidChange(
            inserted: route.inserted, updated: route.updated, deleted: route.deleted, refreshed: route.refreshed,
            changedKeys: changedKeys, isMerge: isMerge, requiresRefetch: requiresRefetch, previousValues: previous)
    }
}
