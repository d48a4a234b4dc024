extension Publisher {
    /// Interleaves this publisher's values with those of 2 others, in the order they arrive.
    ///
    /// Finishes when all have finished; fails as soon as one fails. Demand is shared as in
    /// ``merge(with:)-(P)``.
    ///
    /// ```swift
    /// let cancellable = [1].publisher
    ///     .merge(with: [2].publisher, [3].publisher)
    ///     .sink { print($0) }   // 1, 2, 3
    /// ```
    public func merge<B, C>(with b: B, _ c: C) -> Publishers.Merge3<Self, B, C>
    where B: Publisher,
          C: Publisher,
          Failure == B.Failure, Output == B.Output,
          B.Failure == C.Failure, B.Output == C.Output {
        Publishers.Merge3(self, b, c)
    }
}

extension Publishers {
    /// A publisher that interleaves the values of three publishers of the same types.
    ///
    /// It finishes when all of them have finished and fails as soon as one of them fails,
    /// cancelling the others. Downstream demand is shared among the upstreams; see
    /// ``Publisher/merge(with:)-(P)`` for the details.
    public struct Merge3<A, B, C>: Publisher
    where A: Publisher, B: Publisher, C: Publisher,
          A.Failure == B.Failure, A.Output == B.Output,
          B.Failure == C.Failure, B.Output == C.Output {
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

        /// Creates a merge of three publishers.
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Attaches `subscriber` to every upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let links = startMerge(subscriber, sourceCount: 3)
            a.receive(subscriber: links[0])
            b.receive(subscriber: links[1])
            c.receive(subscriber: links[2])
        }

        /// Adds another publisher to this merge, returning a merge of 4.
        public func merge<P>(with other: P) -> Publishers.Merge4<A, B, C, P>
        where P: Publisher, C.Failure == P.Failure, C.Output == P.Output {
            Publishers.Merge4(a, b, c, other)
        }

        /// Adds 2 more publishers to this merge, returning a merge of 5.
        public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge5<A, B, C, Z, Y>
        where Z: Publisher,
              Y: Publisher,
              C.Failure == Z.Failure, C.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output {
            Publishers.Merge5(a, b, c, z, y)
        }

        /// Adds 3 more publishers to this merge, returning a merge of 6.
        public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge6<A, B, C, Z, Y, X>
        where Z: Publisher,
              Y: Publisher,
              X: Publisher,
              C.Failure == Z.Failure, C.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output,
              Y.Failure == X.Failure, Y.Output == X.Output {
            Publishers.Merge6(a, b, c, z, y, x)
        }

        /// Adds 4 more publishers to this merge, returning a merge of 7.
        public func merge<Z, Y, X, W>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge7<A, B, C, Z, Y, X, W>
        where Z: Publisher,
              Y: Publisher,
              X: Publisher,
              W: Publisher,
              C.Failure == Z.Failure, C.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output,
              Y.Failure == X.Failure, Y.Output == X.Output,
              X.Failure == W.Failure, X.Output == W.Output {
            Publishers.Merge7(a, b, c, z, y, x, w)
        }

        /// Adds 5 more publishers to this merge, returning a merge of 8.
        public func merge<Z, Y, X, W, V>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V) -> Publishers.Merge8<A, B, C, Z, Y, X, W, V>
        where Z: Publisher,
              Y: Publisher,
              X: Publisher,
              W: Publisher,
              V: Publisher,
              C.Failure == Z.Failure, C.Output == Z.Output,
              Z.Failure == Y.Failure, Z.Output == Y.Output,
              Y.Failure == X.Failure, Y.Output == X.Output,
              X.Failure == W.Failure, X.Output == W.Output,
              W.Failure == V.Failure, W.Output == V.Output {
            Publishers.Merge8(a, b, c, z, y, x, w, v)
        }
    }
}

extension Publishers.Merge3: Equatable where A: Equatable, B: Equatable, C: Equatable {}
