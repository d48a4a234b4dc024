extension Publishers {
    /// A publisher that interleaves the values of any number of publishers of one type.
    ///
    /// It finishes when all of them have finished (at once if there are none) and fails as soon
    /// as one of them fails, cancelling the others. Downstream demand is shared among the
    /// upstreams as in ``Publisher/merge(with:)-(P)``.
    ///
    /// ```swift
    /// let feeds = [PassthroughSubject<String, Never>(), PassthroughSubject<String, Never>()]
    /// let cancellable = Publishers.MergeMany(feeds).sink { print($0) }
    /// feeds[1].send("news")   // news
    /// ```
    public struct MergeMany<Upstream: Publisher>: Publisher {
        /// The upstreams' output type.
        public typealias Output = Upstream.Output
        /// The upstreams' failure type.
        public typealias Failure = Upstream.Failure

        /// The publishers to merge.
        public let publishers: [Upstream]

        /// Creates a merge of the given publishers.
        public init(_ upstream: Upstream...) {
            publishers = upstream
        }

        /// Creates a merge of the publishers in `upstream`.
        public init<S: Swift.Sequence>(_ upstream: S) where Upstream == S.Element {
            publishers = Array(upstream)
        }

        /// Attaches `subscriber` to every upstream, in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let links = startMerge(subscriber, sourceCount: publishers.count)
            for (publisher, link) in Swift.zip(publishers, links) {
                publisher.receive(subscriber: link)
            }
        }

        /// Adds `other` to the publishers to merge.
        public func merge(with other: Upstream) -> Publishers.MergeMany<Upstream> {
            Publishers.MergeMany(publishers + [other])
        }
    }
}

extension Publishers.MergeMany: Equatable where Upstream: Equatable {}
