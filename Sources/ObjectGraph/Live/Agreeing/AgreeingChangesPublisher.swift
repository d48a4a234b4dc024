import Foundation
import Streams

/// A publisher of several live queries of one context as one stream whose every value shows
/// all of them at the same state of the store: a list and its badge count never disagree.
///
/// ```swift
/// let inbox = FetchRequest<Message>(sortBy: [SortDescriptor(\.date)])
/// let unread = FetchRequest<Message>(predicate: #Predicate { !$0.isRead })
/// let cancellable = view.changesPublisher(for: .results(inbox), .count(unread))
///     .sink(receiveCompletion: { print($0) }, receiveValue: { difference, unreadCount in
///         rows = rows.applying(difference)!
///         badge = unreadCount
///     })
/// ```
///
/// Separate publishers each deliver when their own demand arrives, so for a moment one can show
/// a save the other has not shown yet. Here one subscription follows every part, each with a
/// controller of its own, and delivers them together, only between batches of changes: each
/// value carries, for every part, its change since the previous value (a difference, empty when
/// the part did not change, or the count now). The first value carries the initial state of
/// every part (each result inserted whole), even when all are empty; after that one value per
/// batch (a save, a merged sibling save) that changed a part. While the subscriber has no
/// demand, batches pile up into one value, as for ``ChangesPublisher``, and still every part of
/// it is at the same state. A failure of any part ends the stream; `cancel()` stops every
/// controller. Values are delivered on the context's queue.
public struct AgreeingChangesPublisher<Output>: Publisher {
    /// Why the stream failed.
    public typealias Failure = ObjectGraphError

    /// The context whose changes are followed.
    public let context: ManagedObjectContext
    /// Starts each part.
    let starts: [(ManagedObjectContext) throws -> any LiveQueryFeed]
    /// Makes a value from the parts' changes, one `Change` per part in order.
    let makeOutput: ([Any]) -> Output

    init(context: ManagedObjectContext, starts: [(ManagedObjectContext) throws -> any LiveQueryFeed], makeOutput: @escaping ([Any]) -> Output) {
        self.context = context
        self.starts = starts
        self.makeOutput = makeOutput
    }

    init<Currents>(context: ManagedObjectContext, parts: AgreeingParts<Output, Currents>) {
        self.init(context: context, starts: parts.starts, makeOutput: parts.changes)
    }

    /// Starts every part for `subscriber` and hands over the subscription.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let pending = AgreeingPending(feeds: AgreeingFeeds(observers: context.liveObservers), makeOutput: makeOutput)
        LiveSubscription(downstream: subscriber, context: context, pending: pending)
            .startAgreeing(handingTo: subscriber, starts: starts)
    }
}

/// The parts of one agreeing subscription, kept alive until it ends.
final class FeedGroup {
    let feeds: [any LiveQueryFeed]

    init(feeds: [any LiveQueryFeed]) {
        self.feeds = feeds
    }

    func stop() {
        for feed in feeds { feed.stop() }
    }
}

/// What an agreeing subscription has not delivered: the parts' changes, taken together, never
/// in the middle of a batch. The first take gives every part's initial state.
struct AgreeingFeeds {
    let observers: LiveObserverIndex
    var feeds: [any LiveQueryFeed] = []
    private var hasDeliveredInitialState = false

    init(observers: LiveObserverIndex) {
        self.observers = observers
    }

    /// Every part's change (its `Change`, in order), or `nil` when none changed or a batch is
    /// still reaching the parts.
    mutating func take() -> [Any]? {
        guard !feeds.isEmpty, !observers.isDispatching,
              !hasDeliveredInitialState || feeds.contains(where: \.hasChange) else { return nil }
        hasDeliveredInitialState = true
        return feeds.map { $0.takeChange() }
    }
}

/// A pending output made of ``AgreeingFeeds``.
protocol AgreeingPendingOutput: PendingOutput {
    var feeds: AgreeingFeeds { get set }
}

/// The parts' changes, made into the publisher's value.
struct AgreeingPending<Output>: AgreeingPendingOutput {
    var feeds: AgreeingFeeds
    let makeOutput: ([Any]) -> Output

    mutating func take() -> Output? { feeds.take().map(makeOutput) }
}

extension LiveSubscription where Pending: AgreeingPendingOutput {
    /// Starts every part on the context's queue, then hands the subscription over. The parts'
    /// controllers hear a batch one after another, so delivery waits for the batch's end.
    func startAgreeing(handingTo subscriber: Downstream, starts: [(ManagedObjectContext) throws -> any LiveQueryFeed]) {
        let context = context
        start(handingTo: subscriber, entity: "a query of an agreeing observation") {
            var feeds: [any LiveQueryFeed] = []
            do {
                for start in starts { feeds.append(try start(context)) }
            } catch {
                // A part that fails to start stops the ones started before it.
                for feed in feeds { feed.stop() }
                throw error
            }
            for feed in feeds {
                feed.onError = { [weak self] error in self?.fail(error) }
            }
            let batchEnd = context.liveObservers.addBatchEnd { [weak self] in self?.drain() }
            let group = FeedGroup(feeds: feeds)
            update { $0.feeds.feeds = feeds }
            attach(controller: group, stop: { [weak group, weak observers = context.liveObservers] in
                observers?.removeBatchEnd(batchEnd)
                group?.stop()
            })
        }
    }
}

extension ManagedObjectContext {
    /// A publisher of two live queries of this context as one stream whose every value shows
    /// both at the same state of the store.
    ///
    /// ```swift
    /// view.changesPublisher(for: .results(inbox), .count(unread))
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { (value: (CollectionDifference<Message>, Int)) in … })
    /// ```
    ///
    /// See ``AgreeingChangesPublisher`` for the rules.
    public func changesPublisher<A: AgreeingQuery, B: AgreeingQuery>(for a: A, _ b: B) -> AgreeingChangesPublisher<(A.Change, B.Change)> {
        AgreeingChangesPublisher(context: self, parts: .of(a, b))
    }

    /// A publisher of three live queries of this context as one stream whose every value shows
    /// all of them at the same state of the store (see ``AgreeingChangesPublisher``).
    public func changesPublisher<A: AgreeingQuery, B: AgreeingQuery, C: AgreeingQuery>(
        for a: A, _ b: B, _ c: C
    ) -> AgreeingChangesPublisher<(A.Change, B.Change, C.Change)> {
        AgreeingChangesPublisher(context: self, parts: .of(a, b, c))
    }

    /// A publisher of four live queries of this context as one stream whose every value shows
    /// all of them at the same state of the store (see ``AgreeingChangesPublisher``).
    public func changesPublisher<A: AgreeingQuery, B: AgreeingQuery, C: AgreeingQuery, D: AgreeingQuery>(
        for a: A, _ b: B, _ c: C, _ d: D
    ) -> AgreeingChangesPublisher<(A.Change, B.Change, C.Change, D.Change)> {
        AgreeingChangesPublisher(context: self, parts: .of(a, b, c, d))
    }

    /// Two live queries of this context as one `AsyncSequence` whose every value shows both at
    /// the same state of the store (see ``AgreeingChangesPublisher``); each `next()` is one
    /// unit of demand.
    ///
    /// ```swift
    /// for try await (difference, unreadCount) in view.changes(for: .results(inbox), .count(unread)) { … }
    /// ```
    public func changes<A: AgreeingQuery, B: AgreeingQuery>(for a: A, _ b: B) -> LiveSequence<AgreeingChangesPublisher<(A.Change, B.Change)>> {
        LiveSequence(changesPublisher(for: a, b))
    }

    /// Three live queries of this context as one `AsyncSequence` of values that agree.
    public func changes<A: AgreeingQuery, B: AgreeingQuery, C: AgreeingQuery>(
        for a: A, _ b: B, _ c: C
    ) -> LiveSequence<AgreeingChangesPublisher<(A.Change, B.Change, C.Change)>> {
        LiveSequence(changesPublisher(for: a, b, c))
    }

    /// Four live queries of this context as one `AsyncSequence` of values that agree.
    public func changes<A: AgreeingQuery, B: AgreeingQuery, C: AgreeingQuery, D: AgreeingQuery>(
        for a: A, _ b: B, _ c: C, _ d: D
    ) -> LiveSequence<AgreeingChangesPublisher<(A.Change, B.Change, C.Change, D.Change)>> {
        LiveSequence(changesPublisher(for: a, b, c, d))
    }
}
