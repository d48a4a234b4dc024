extension Publisher {
    /// Interleaves this publisher's values with those of `other`.
    ///
    /// Values are delivered in the order they arrive. The merge finishes when every upstream has
    /// finished, and fails as soon as one fails, cancelling the others.
    ///
    /// Downstream demand is shared: each upstream is asked for the demand downstream has not yet
    /// had covered, so that any one of them can satisfy it and a silent upstream never holds up a
    /// busy one. If several answer the same demand at once, the extra values wait (bounded by the
    /// demand times the number of upstreams) until downstream asks for more.
    ///
    /// ```swift
    /// let taps = PassthroughSubject<String, Never>()
    /// let keys = PassthroughSubject<String, Never>()
    /// let cancellable = taps.merge(with: keys).sink { print($0) }
    /// taps.send("tap")   // tap
    /// keys.send("a")     // a
    /// ```
    public func merge<P>(with other: P) -> Publishers.Merge<Self, P>
    where P: Publisher, Failure == P.Failure, Output == P.Output {
        Publishers.Merge(self, other)
    }

    /// Interleaves this publisher's values with those of another publisher of the same type.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher
    ///     .merge(with: [3, 4].publisher)
    ///     .sink { print($0) }   // 1, 2, 3, 4
    /// ```
    public func merge(with other: Self) -> Publishers.MergeMany<Self> {
        Publishers.MergeMany(self, other)
    }
}

extension Publishers {
    /// A publisher that interleaves the values of two publishers of the same types.
    ///
    /// It finishes when all of them have finished and fails as soon as one of them fails,
    /// cancelling the others. Downstream demand is shared among the upstreams; see
    /// ``Publisher/merge(with:)-(P)`` for the details.
    public struct Merge<A, B>: Publisher
    where A: Publisher, B: Publisher, A.Failure == B.Failure, A.Output == B.Output {
        /// The upstreams' output type.
        public typealias Output = A.Output
        /// The upstreams' failure type.
        public typealias Failure = A.Failure

        /// The first publisher to merge.
        public let a: A
        /// The second publisher to merge.
        public let b: B

        /// Creates a merge of two publishers.
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Attaches `subscriber` to every upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let links = startMerge(subscriber, sourceCount: 2)
            a.receive(subscriber: links[0])
            b.receive(subscriber: links[1])
        }

        /// Adds another publisher to this merge, returning a merge of 3.
        public func merge<P>(with other: P) -> Publishers.Merge3<A, B, P>
        where P: Publisher, B.Failure == P.Failure, B.Output == P.Output {
            Publishers.Merge3(a, b, other)
        }

        /// Adds 2 more publishers to this merge, returning a merge of 4.
        public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge4<A, B, Z, Y>
        where Z: Publisher,
              Y: Publisher,
              B.Failure == Z.Failure, B.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output {
            Publishers.Merge4(a, b, z, y)
        }

        /// Adds 3 more publishers to this merge, returning a merge of 5.
        public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge5<A, B, Z, Y, X>
        where Z: Publisher,
              Y: Publisher,
              X: Publisher,
              B.Failure == Z.Failure, B.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output,
              Y.Failure == X.Failure, Y.Output == X.Output {
            Publishers.Merge5(a, b, z, y, x)
        }

        /// Adds 4 more publishers to this merge, returning a merge of 6.
        public func merge<Z, Y, X, W>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge6<A, B, Z, Y, X, W>
        where Z: Publisher,
              Y: Publisher,
              X: Publisher,
              W: Publisher,
              B.Failure == Z.Failure, B.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output,
              Y.Failure == X.Failure, Y.Output == X.Output,
              X.Failure == W.Failure, X.Output == W.Output {
            Publishers.Merge6(a, b, z, y, x, w)
        }

        /// Adds 5 more publishers to this merge, returning a merge of 7.
        public func merge<Z, Y, X, W, V>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V) -> Publishers.Merge7<A, B, Z, Y, X, W, V>
        where Z: Publisher,
              Y: Publisher,
              X: Publisher,
              W: Publisher,
              V: Publisher,
              B.Failure == Z.Failure, B.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output,
              Y.Failure == X.Failure, Y.Output == X.Output,
              X.Failure == W.Failure, X.Output == W.Output,
              W.Failure == V.Failure, W.Output == V.Output {
            Publishers.Merge7(a, b, z, y, x, w, v)
        }

        /// Adds 6 more publishers to this merge, returning a merge of 8.
        public func merge<Z, Y, X, W, V, U>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V, _ u: U) -> Publishers.Merge8<A, B, Z, Y, X, W, V, U>
        where Z: Publisher,
              Y: Publisher,
              X: Publisher,
              W: Publisher,
              V: Publisher,
              U: Publisher,
              B.Failure == Z.Failure, B.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output,
              Y.Failure == X.Failure, Y.Output == X.Output,
              X.Failure == W.Failure, X.Output == W.Output,
              W.Failure == V.Failure, W.Output == V.Output,
              V.Failure == U.Failure, V.Output == U.Output {
            Publishers.Merge8(a, b, z, y, x, w, v, u)
        }
    }
}

extension Publishers.Merge: Equatable where A: Equatable, B: Equatable {}
