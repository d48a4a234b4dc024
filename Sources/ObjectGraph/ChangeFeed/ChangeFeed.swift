import Dispatch
import Foundation
import Streams

/// Follows the other writers of a container's store — other containers in this process, other
/// processes — and hands what they changed to the container's contexts, which merge it as they
/// merge a sibling's save.
///
/// Woken by the store's ``WakeUpChannel`` (or, as a safety net, every
/// ``ChangeFeedOptions/safetyNetInterval``), it looks at the store (``StoreChangeWatcher``): when
/// another connection committed, it reads the history after the container's token, skipping the
/// container's own transactions, and the rows of what the contexts hold or observe, in one
/// snapshot; the result is one save, numbered in the container's commit order, broadcast to
/// every context. A commit the history does not account for (a write that bypassed the store),
/// or history trimmed before it was read, resets the contexts instead: they read their objects
/// again and live results fetch again, so nothing is ever silently stale.
///
/// It also records how far the container has read (see ``HistoryTrimming``), which trims the
/// history every reader has read.
///
/// Opening a container costs the feed one read of the history's state, on the reader the
/// first fetch uses anyway: that is where the feed starts. Its own connection, its wake-up pipe
/// and its timer come on the feed's queue, off the launch path; their first look then finds
/// whatever was committed since that read (a changed token or count of other programs' writes),
/// so nothing is missed in between. A file without history tables has no such count: there the
/// watcher starts at once, as its `data_version` is the only baseline.
final class ChangeFeed: @unchecked Sendable {
    // `lock` protects `position`, `phase`, `recorded`, `isRecording`, `recordFinished`,
    // `watcher`, `timer`, `endpoint` and `isListening`. The watcher, the channel and the store are thread-safe; `coordinator` is
    // set once, in `start`, before the feed's queue runs anything.
    private let lock = Lock()
    private var position: FeedPosition
    private var phase = Phase.following
    /// The token last recorded as this container's progress, and when.
    private var recorded: (token: Int64, at: Date)?
    /// Where the feed started: until it moves, there is nothing to record.
    private let startToken: Int64
    private let queue = DispatchQueue(label: "ObjectGraph.changeFeed")
    /// Whether a record of progress is being written (on `queue`, without the lock).
    private var isRecording = false
    /// Signalled when that record is written: set by a ``close()`` that waits for it.
    private var recordFinished: DispatchSemaphore?
    private let store: any SharedStore
    /// Made on the feed's queue, at its first look.
    private var watcher: (any StoreChangeWatcher)?
    private let channel: (any WakeUpChannel)?
    private let options: ChangeFeedOptions
    private weak var coordinator: StoreCoordinator?
    private var timer: DispatchSourceTimer?
    private var endpoint: String?
    private var isListening = false
    /// The name under which the container's progress is recorded.
    let readerName = "container-" + UUID().uuidString
    private let remoteTokens = PassthroughSubject<HistoryToken, Never>()

    private enum Phase {
        case following
        case closed
    }

    /// How often progress is recorded at most while the token moves. Seldom: a progress older
    /// than the truth only keeps history a little longer, and each record is a write (an
    /// `fsync`). The first record,
    /// which makes the container a reader at all, is made at once.
    private static let progressInterval: TimeInterval = 30

    init(store: any SharedStore, channel: (any WakeUpChannel)?, options: ChangeFeedOptions) throws(ObjectGraphError) {
        self.store = store
        self.channel = channel
        self.options = options
        var (state, writes) = try store.historyStateAndOwnWrites()
        if state.storeIdentifier.isEmpty {
            // No history tables: the watcher's first look is the baseline of later ones.
            let watcher = try store.makeChangeWatcher()
            let look = try watcher.look()
            guard let looked = look.state, let lookedWrites = look.ownWrites else {
                throw .corruptStore(path: store.path, message: "the history state could not be read")
            }
            (state, writes) = (looked, lookedWrites)
            self.watcher = watcher
        }
        position = FeedPosition(state: state, ownWrites: writes)
        startToken = state.lastToken
    }

    /// Starts listening and looking, on the feed's queue; the container's contexts exist from
    /// now on.
    func start(coordinator: StoreCoordinator) {
        self.coordinator = coordinator
        queue.async { [weak self] in self?.startWatching() }
    }

    /// Listens on the channel and starts the safety net's timer, then looks: every commit since
    /// the feed's start is either in that look or wakes a later one.
    ///
    /// That first look reads the history's state on the store's reader (open already, its
    /// schema read); the watcher and its connection are made only when the state moved since
    /// the open, or at the first wake-up or tick.
    private func startWatching() {
        guard lock.withLock({ phase == .following }) else { return }
        let endpoint = channel?.startListening(on: queue, from: startToken) { [weak self] wakeUp in self?.wokenUp(wakeUp) }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.nanoseconds(Int(options.safetyNetInterval.timeInterval * 1e9))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in
            self?.check()
            self?.recordProgressIfDue()
        }
        timer.resume()
        let closed = lock.withLock { () -> Bool in
            guard phase == .following else { return true }
            (self.endpoint, self.timer, isListening) = (endpoint, timer, true)
            return false
        }
        guard !closed else {
            // Closed meanwhile: `close()` found nothing of these to stop.
            timer.cancel()
            channel?.stopListening()
            return
        }
        let hasWatcher = lock.withLock { watcher != nil }
        if !hasWatcher, let (state, _) = try? store.historyStateAndOwnWrites(), !lock.withLock({ position.hasMoved(comparedWith: state) }) {
            return  // nothing since the open: the watcher waits for the first wake-up or tick
        }
        check()
    }

    /// The watcher, made at the first look (on the feed's queue); `nil` once closed, or when it
    /// cannot be made now (the next look tries again).
    private func currentWatcher() -> (any StoreChangeWatcher)? {
        let (following, existing) = lock.withLock { (phase == .following, watcher) }
        guard following else { return nil }
        if let existing { return existing }
        guard let made = try? store.makeChangeWatcher() else { return nil }
        let kept = lock.withLock { () -> Bool in
            guard phase == .following else { return false }
            watcher = made
            return true
        }
        guard kept else {
            made.close()
            return nil
        }
        return made
    }

    /// What the contexts of the container learn: the newest token, each time the feed read
    /// another writer's transactions.
    var remoteChanges: AnyPublisher<HistoryToken, Never> { remoteTokens.eraseToAnyPublisher() }

    /// Notes a transaction of the container's own (called in commit order, with the
    /// coordinator's save lock held).
    func noteOwn(_ token: Int64) {
        lock.withLock { position.noteOwn(token) }
    }

    /// Notes that the container is writing, or wrote, without history (see
    /// ``FeedPosition/noteOwnWriteWithoutHistory()``); called before and after such a write.
    func noteOwnWriteWithoutHistory() {
        lock.withLock { position.noteOwnWriteWithoutHistory() }
    }

    /// Stops following and forgets the container's progress. Idempotent; from any thread.
    ///
    /// Once it returns, the container is no longer listed as a reader: a record of its progress
    /// already under way (on the feed's queue) is waited for, and the reader removed after it.
    /// Nothing else on the feed's queue is waited for, such as a look at an unreachable server.
    func close() {
        lock.lock()
        let (wasFollowing, timer, watcher, listened) = (phase == .following, timer, watcher, isListening)
        phase = .closed
        // Records check the phase first, so none starts after this; one may be writing now.
        let recordWritten = isRecording ? DispatchSemaphore(value: 0) : nil
        recordFinished = recordWritten
        let mayBeListed = recorded != nil || isRecording
        lock.unlock()
        guard wasFollowing else { return }
        timer?.cancel()
        if listened { channel?.stopListening() }
        recordWritten?.wait()
        if mayBeListed { try? store.removeReader(named: readerName) }
        watcher?.close()
    }

    /// Runs a check now and waits for it: for tests and benchmarks that must not wait for the
    /// safety net.
    func checkNow() {
        queue.sync { check() }
    }

    /// Records the container's progress now, so that trimming started by this container counts
    /// everything it has read.
    func recordProgressNow() {
        queue.sync { recordProgressIfDue(force: true) }
    }

    // MARK: On the queue

    /// Acts on a wake-up. A commit the position accounts for (the container's own, or one
    /// already read) needs nothing; another writer's is read at once, the read's own view of
    /// the history's state standing for the look (one round trip less per save); anything else
    /// is looked at.
    private func wokenUp(_ wakeUp: WakeUp) {
        guard case .committed(let token, let written) = wakeUp else { return check() }
        guard !lock.withLock({ position.accountsFor(token) }) else { return }
        guard let coordinator, let watcher = currentWatcher() else { return }
        follow(coordinator, watcher, deciding: token, written: written)
    }

    /// Looks at the store and follows, resets or does nothing.
    private func check() {
        guard let coordinator, let watcher = currentWatcher(),
              let look = try? watcher.look(), look.committedElsewhere, let state = look.state, let writes = look.ownWrites else { return }
        switch lock.withLock({ position.decide(after: state, ownWrites: writes) }) {
        case .nothing: return
        case .follow: follow(coordinator, watcher)
        case .reset: reset(coordinator, watcher)
        }
    }

    /// Reads what other writers changed since the token and broadcasts it as one save. With
    /// `deciding` (the token of the commit that woke the feed), no look came first: the state
    /// the read saw decides, and a reset (a write of another program, another store) drops what
    /// was read; and a commit the position accounts for once the save lock is held (the
    /// container's own save, whose `NOTIFY` came back before the save had noted its token)
    /// calls for no read. `written` is the wake-up's hint of the rows to read (see
    /// ``WakeUp/committed(token:written:)``).
    private func follow(
        _ coordinator: StoreCoordinator, _ watcher: any StoreChangeWatcher, deciding: Int64? = nil, written: [String: [Int64]] = [:]
    ) {
        enum Outcome {
            case merged(DidSave?, HistoryToken?)
            case expired
            case failed
        }
        // Under the save lock, no save of this container commits meanwhile: every earlier one
        // is in the snapshot read, every later one gets a later number than this merge.
        let outcome = coordinator.withSaveLock { () -> Outcome in
            if let deciding, lock.withLock({ position.accountsFor(deciding) }) { return .merged(nil, nil) }
            let (token, own, identifier) = lock.withLock { (position.token, position.own, position.storeIdentifier) }
            let changes: RemoteChanges
            do throws(ObjectGraphError) {
                changes = try watcher.changes(after: token, storeIdentifier: identifier, own: own, written: written) {
                    coordinator.followedEntityNames()
                }
            } catch .historyTokenExpired, .historyTokenMismatch, .historyTokenAhead {
                return .expired
            } catch {
                return .failed  // the next wake-up or look tries again
            }
            if deciding != nil, lock.withLock({ position.decide(after: changes.state, ownWrites: changes.ownWrites) }) == .reset {
                return .expired
            }
            lock.withLock { position.advance(to: changes.lastToken) }
            let newest = changes.readOthers ? HistoryToken(storeIdentifier: identifier, value: changes.lastToken) : nil
            guard !changes.isEmpty else { return .merged(nil, newest) }
            let save = DidSave(remote: changes, origin: ObjectIdentifier(self), sequence: coordinator.takeSequence(), token: newest)
            return .merged(save, newest)
        }
        switch outcome {
        case let .merged(save, newest):
            if let save { coordinator.broadcast(save) }
            if let newest { remoteTokens.send(newest) }
        case .expired:
            reset(coordinator, watcher)
        case .failed:
            return
        }
    }

    /// Starts over at the store's current history: every context reads its objects again.
    private func reset(_ coordinator: StoreCoordinator, _ watcher: any StoreChangeWatcher) {
        let save = coordinator.withSaveLock { () -> DidSave? in
            guard let state = try? store.historyState() else { return nil }
            let writes = try? watcher.look().ownWrites
            lock.withLock { position.restart(at: state, ownWrites: writes) }
            return DidSave(resetTo: state.currentToken, origin: ObjectIdentifier(self), sequence: coordinator.takeSequence())
        }
        guard let save else { return }
        coordinator.broadcast(save)
        if let token = save.historyToken { remoteTokens.send(token) }
    }

    /// Records the container's progress when it moved (at most once a second) or has not been
    /// recorded for a while; trims the history as the options say.
    ///
    /// A container starts recording once its position moved: opening a store and reading it
    /// write nothing. Until then its wake-up endpoint, which carries the start token, holds
    /// back the history after it (``WakeUpChannel/listenerStarts(maximumAge:)``); where the
    /// channel cannot tell (PostgreSQL, no pipe), another process may trim history this
    /// container has not read, and it then starts over with a fresh fetch, as for any expired
    /// token.
    private func recordProgressIfDue(force: Bool = false) {
        let now = Date()
        let due: Int64? = lock.withLock {
            guard phase == .following else { return nil }
            let token = position.token
            if recorded == nil, token == startToken, !force { return nil }
            if !force, let recorded {
                let age = now.timeIntervalSince(recorded.at)
                let heartbeat = min(3600, options.trimming.readerTimeout.timeInterval / 4)
                guard (recorded.token != token && age >= Self.progressInterval) || age >= heartbeat else { return nil }
            }
            isRecording = true
            return token
        }
        guard let token = due else { return }
        let written: Bool
        do {
            try store.recordReader(
                ReaderProgress(name: readerName, token: token, isContainer: true, endpoint: lock.withLock { endpoint }), trimming: options.trimming,
                listeners: ReaderListeners(channel))
            written = true
        } catch {
            written = false  // tried again at the next tick
        }
        let closing = lock.withLock { () -> DispatchSemaphore? in
            if written { recorded = (token, now) }
            isRecording = false
            defer { recordFinished = nil }
            return recordFinished
        }
        closing?.signal()
    }
}
