extension Publisher {
    /// Interleaves this publisher's values with those of 3 others, in the order they arrive.
    ///
    /// Finishes when all have finished; fails as soon as one fails. Demand is shared as in
    /// ``merge(with:)-(P)``.
    ///
    /// ```swift
    /// let cancellable = [1].publisher
    ///     .merge(with: [2].publisher, [3].publisher, [4].publisher)
    ///     .sink { print($0) }   // 1, 2, 3, 4
    /// ```
    public func merge<B, C, D>(with b: B, _ c: C, _ d: D) -> Publishers.Merge4<Self, B, C, D>
    where B: Publisher,
          C: Publisher,
          D: Publisher,
          Failure == B.Failure, Output == B.Output,
          B.Failure == C.Failure, B.Output == C.Output,
          C.Failure == D.Failure, C.Output == D.Output {
        Publishers.Merge4(self, b, c, d)
    }
}

extension Publishers {
    /// A publisher that interleaves the values of four publishers of the same types.
    ///
    /// It finishes when all of them have finished and fails as soon as one of them fails,
    /// cancelling the others. Downstream demand is shared among the upstreams; see
    /// ``Publisher/merge(with:)-(P)`` for the details.
    public struct Merge4<A, B, C, D>: Publisher
    where A: Publisher, B: Publisher, C: Publisher, D: Publisher,
          A.Failure == B.Failure, A.Output == B.Output,
          B.Failure == C.Failure, B.Output == C.Output,
          C.Failure == D.Failure, C.Output == D.Output {
        /// The upstreams' output type.
        public typealias Output = A.Output
        /// The upstreams' failure type.
        public typealias Failure = A.Failure

        /// The first publisher to merge.
        public let a: A
        /// The second publisher to merge.
        public let b: B
        /// The third publisher to merge.
        public let c: C
        /// The fourth publisher to merge.
        public let d: D

        /// Creates a merge of four publishers.
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Attaches `subscriber` to every upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let links = startMerge(subscriber, sourceCount: 4)
            a.receive(subscriber: links[0])
            b.receive(subscriber: links[1])
            c.receive(subscriber: links[2])
            d.receive(subscriber: links[3])
        }

        /// Adds another publisher to this merge, returning a merge of 5.
        public func merge<P>(with other: P) -> Publishers.Merge5<A, B, C, D, P>
        where P: Publisher, D.Failure == P.Failure, D.Output == P.Output {
            Publishers.Merge5(a, b, c, d, other)
        }

        /// Adds 2 more publishers to this merge, returning a merge of 6.
        public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge6<A, B, C, D, Z, Y>
        where Z: Publisher,
              Y: Publisher,
              D.Failure == Z.Failure, D.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output {
            Publishers.Merge6(a, b, c, d, z, y)
        }

        /// Adds 3 more publishers to this merge, returning a merge of 7.
        public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge7<A, B, C, D, Z, Y, X>
        where Z: Publisher,
              Y: Publisher,
              X: Publisher,
              D.Failure == Z.Failure, D.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output,
              Y.Failure == X.Failure, Y.Output == X.Output {
            Publishers.Merge7(a, b, c, d, z, y, x)
        }

        /// Adds 4 more publishers to this merge, returning a merge of 8.
        public func merge<Z, Y, X, W>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge8<A, B, C, D, Z, Y, X, W>
        where Z: Publisher,
              Y: Publisher,
              X: Publisher,
              W: Publisher,
              D.Failure == Z.Failure, D.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output,
              Y.Failure == X.Failure, Y.Output == X.Output,
              X.Failure == W.Failure, X.Output == W.Output {
            Publishers.Merge8(a, b, c, d, z, y, x, w)
        }
    }
}

extension Publishers.Merge4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {}
