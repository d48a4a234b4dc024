extension Publisher {
    /// Interleaves this publisher's values with those of 4 others, in the order they arrive.
    ///
    /// Finishes when all have finished; fails as soon as one fails. Demand is shared as in
    /// ``merge(with:)-(P)``.
    ///
    /// ```swift
    /// let cancellable = [1].publisher
    ///     .merge(with: [2].publisher, [3].publisher, [4].publisher, [5].publisher)
    ///     .sink { print($0) }   // 1, 2, 3, 4, 5
    /// ```
    public func merge<B, C, D, E>(with b: B, _ c: C, _ d: D, _ e: E) -> Publishers.Merge5<Self, B, C, D, E>
    where B: Publisher,
          C: Publisher,
          D: Publisher,
          E: Publisher,
          Failure == B.Failure, Output == B.Output,
          B.Failure == C.Failure, B.Output == C.Output,
          C.Failure == D.Failure, C.Output == D.Output,
          D.Failure == E.Failure, D.Output == E.Output {
        Publishers.Merge5(self, b, c, d, e)
    }
}

extension Publishers {
    /// A publisher that interleaves the values of five publishers of the same types.
    ///
    /// It finishes when all of them have finished and fails as soon as one of them fails,
    /// cancelling the others. Downstream demand is shared among the upstreams; see
    /// ``Publisher/merge(with:)-(P)`` for the details.
    public struct Merge5<A, B, C, D, E>: Publisher
    where A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher,
          A.Failure == B.Failure, A.Output == B.Output,
          B.Failure == C.Failure, B.Output == C.Output,
          C.Failure == D.Failure, C.Output == D.Output,
          D.Failure == E.Failure, D.Output == E.Output {
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
        /// The fifth publisher to merge.
        public let e: E

        /// Creates a merge of five publishers.
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
        }

        /// Attaches `subscriber` to every upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let links = startMerge(subscriber, sourceCount: 5)
            a.receive(subscriber: links[0])
            b.receive(subscriber: links[1])
            c.receive(subscriber: links[2])
            d.receive(subscriber: links[3])
            e.receive(subscriber: links[4])
        }

        /// Adds another publisher to this merge, returning a merge of 6.
        public func merge<P>(with other: P) -> Publishers.Merge6<A, B, C, D, E, P>
        where P: Publisher, E.Failure == P.Failure, E.Output == P.Output {
            Publishers.Merge6(a, b, c, d, e, other)
        }

        /// Adds 2 more publishers to this merge, returning a merge of 7.
        public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge7<A, B, C, D, E, Z, Y>
        where Z: Publisher,
              Y: Publisher,
              E.Failure == Z.Failure, E.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output {
            Publishers.Merge7(a, b, c, d, e, z, y)
        }

        /// Adds 3 more publishers to this merge, returning a merge of 8.
        public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge8<A, B, C, D, E, Z, Y, X>
        where Z: Publisher,
              Y: Publisher,
              X: Publisher,
              E.Failure == Z.Failure, E.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output,
              Y.Failure == X.Failure, Y.Output == X.Output {
            Publishers.Merge8(a, b, c, d, e, z, y, x)
        }
    }
}

extension Publishers.Merge5: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable {}
