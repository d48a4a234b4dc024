extension Publisher where Output: RangeReplaceableCollection, Output.Index == Int, Failure == Never {
    /// Publishes this collection with each difference from `changes` applied to it, making new
    /// elements with `transform`.
    ///
    /// The collection is the latest value this publisher sent (for example a `@Published`
    /// array); a value is published only when a difference arrives. `transform` runs only for
    /// inserted, updated and moved elements (a moved element may have changed as well: an
    /// object moves in sorted results because its sort key changed); untouched elements keep
    /// their value. Several parallel collections can follow the same stream of changes through
    /// a subject:
    ///
    /// ```swift
    /// let changes = PassthroughSubject<CollectionDifference<Item>, StoreError>()
    /// $rows.applyingChanges(changes) { RowViewModel($0) }
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { self.rows = $0 })
    /// $titles.applyingChanges(changes) { $0.name }
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { self.titles = $0 })
    /// let connection = itemChanges.subscribe(changes)
    /// ```
    ///
    /// Demand passes to `changes`: one difference per value requested. The stream finishes or
    /// fails when `changes` does.
    ///
    /// Each difference is applied to the collection as it stands: this operator's previous
    /// result, or a value the collection publisher sent since that is not one of those results
    /// (a write to the property by something else). Results that come back late through the
    /// property, after a `receive(on:)` hop, never replace a newer one. A difference that does not
    /// fit a write is applied to the previous result instead; one that fits neither is not
    /// applied, and another is requested in its place. See Docs/LiveResults.md.
    public func applyingChanges<Changes: Publisher, Source>(
        _ changes: Changes,
        _ transform: @escaping (Source) -> Output.Element
    ) -> ApplyingChangesPublisher<Self, Changes, Source> where Changes.Output == CollectionDifference<Source> {
        ApplyingChangesPublisher(collections: self, changes: changes, transform: transform)
    }
}

/// A publisher that applies each difference of one publisher to the latest collection of
/// another.
public struct ApplyingChangesPublisher<Collections: Publisher, Changes: Publisher, Source>: Publisher
where Collections.Output: RangeReplaceableCollection, Collections.Output.Index == Int, Collections.Failure == Never,
      Changes.Output == CollectionDifference<Source> {
    /// The collection with a difference applied.
    public typealias Output = Collections.Output
    /// The failure of the changes.
    public typealias Failure = Changes.Failure

    /// The publisher of the collection to change.
    public let collections: Collections
    /// The publisher of differences.
    public let changes: Changes
    /// Makes a collection element from a changed source element.
    public let transform: (Source) -> Collections.Output.Element

    /// Creates the publisher.
    public init(collections: Collections, changes: Changes, transform: @escaping (Source) -> Collections.Output.Element) {
        self.collections = collections
        self.changes = changes
        self.transform = transform
    }

    /// Follows the collection publisher, then attaches `subscriber` to the changes.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let inner = Inner(downstream: subscriber, transform: transform)
        collections.subscribe(inner.baseTracker)
        changes.subscribe(inner)
    }
}

extension ApplyingChangesPublisher {
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        // `lock` protects every `var`. What the lock's holder lets go of (a replaced collection,
        // whose elements' deinits are user code) is released after unlocking.
        private let lock = Lock()
        private var base = CollectionBase<Output>()
        private var upstream: (any Subscription)?
        private var downstream: Downstream?
        private var baseSubscription: (any Subscription)?
        private let transform: (Source) -> Output.Element

        init(downstream: Downstream, transform: @escaping (Source) -> Output.Element) {
            self.downstream = downstream
            self.transform = transform
        }

        /// Follows the collection publisher; takes every value it is sent.
        var baseTracker: AnySubscriber<Output, Never> {
            AnySubscriber(
                receiveSubscription: { [weak self] subscription in
                    guard let self else { return subscription.cancel() }
                    let accepted = self.lock.withLock {
                        guard self.downstream != nil, self.baseSubscription == nil else { return false }
                        self.baseSubscription = subscription
                        return true
                    }
                    if accepted { subscription.request(.unlimited) } else { subscription.cancel() }
                },
                receiveValue: { [weak self] collection in
                    guard let self else { return .none }
                    self.lock.lock()
                    let replaced = self.base.received(collection)
                    self.lock.unlock()
                    withExtendedLifetime(replaced) {}
                    return .none
                },
                receiveCompletion: { _ in })
        }

        func receive(subscription: any Subscription) {
            lock.lock()
            guard upstream == nil, let downstream else {
                lock.unlock()
                subscription.cancel()
                return
            }
            upstream = subscription
            lock.unlock()
            downstream.receive(subscription: self)
        }

        func receive(_ difference: CollectionDifference<Source>) -> Subscribers.Demand {
            lock.lock()
            guard let downstream else { lock.unlock(); return .none }
            // Taken out, so that applying copies the collection only if someone else shares it.
            var candidates = base.takeCandidates()
            lock.unlock()
            guard let result = candidates.apply(difference, transform: transform) else {
                lock.lock()
                let replaced = base.restore(candidates)
                lock.unlock()
                withExtendedLifetime(replaced) {}
                return .max(1)  // nothing was delivered for this difference
            }
            lock.lock()
            let replaced = base.sent(result)
            lock.unlock()
            withExtendedLifetime((replaced, candidates)) {}
            return downstream.receive(result)
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            lock.lock()
            guard let downstream else { lock.unlock(); return }
            self.downstream = nil
            upstream = nil
            let baseSubscription = self.baseSubscription
            self.baseSubscription = nil
            let released = base.removeAll()
            lock.unlock()
            withExtendedLifetime(released) {}
            baseSubscription?.cancel()
            downstream.receive(completion: completion)
        }

        func request(_ demand: Subscribers.Demand) {
            let upstream = lock.withLock { self.upstream }
            upstream?.request(demand)
        }

        func cancel() {
            lock.lock()
            let upstream = self.upstream
            let baseSubscription = self.baseSubscription
            let released = (downstream, base.removeAll())
            self.upstream = nil
            self.baseSubscription = nil
            downstream = nil
            lock.unlock()
            withExtendedLifetime(released) {}
            upstream?.cancel()
            baseSubscription?.cancel()
        }
    }
}
