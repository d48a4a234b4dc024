extension Publisher {
    /// Interleaves this publisher's values with those of 7 others, in the order they arrive.
    ///
    /// Finishes when all have finished; fails as soon as one fails. Demand is shared as in
    /// ``merge(with:)-(P)``.
    ///
    /// ```swift
    /// let cancellable = [1].publisher
    ///     .merge(with: [2].publisher, [3].publisher, [4].publisher, [5].publisher, [6].publisher, [7].publisher, [8].publisher)
    ///     .sink { print($0) }   // 1, 2, 3, 4, 5, 6, 7, 8
    /// ```
    public func merge<B, C, D, E, F, G, H>(with b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H) -> Publishers.Merge8<Self, B, C, D, E, F, G, H>
    where B: Publisher,
          C: Publisher,
          D: Publisher,
          E: Publisher,
          F: Publisher,
          G: Publisher,
          H: Publisher,
          Failure == B.Failure, Output == B.Output,
          B.Failure == C.Failure, B.Output == C.Output,
          C.Failure == D.Failure, C.Output == D.Output,
          D.Failure == E.Failure, D.Output == E.Output,
          E.Failure == F.Failure, E.Output == F.Output,
          F.Failure == G.Failure, F.Output == G.Output,
          G.Failure == H.Failure, G.Output == H.Output {
        Publishers.Merge8(self, b, c, d, e, f, g, h)
    }
}

extension Publishers {
    /// A publisher that interleaves the values of eight publishers of the same types.
    ///
    /// It finishes when all of them have finished and fails as soon as one of them fails,
    /// cancelling the others. Downstream demand is shared among the upstreams; see
    /// ``Publisher/merge(with:)-(P)`` for the details.
    public struct Merge8<A, B, C, D, E, F, G, H>: Publisher
    where A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher, H: Publisher,
          A.Failure == B.Failure, A.Output == B.Output,
          B.Failure == C.Failure, B.Output == C.Output,
          C.Failure == D.Failure, C.Output == D.Output,
          D.Failure == E.Failure, D.Output == E.Output,
          E.Failure == F.Failure, E.Output == F.Output,
          F.Failure == G.Failure, F.Output == G.Output,
          G.Failure == H.Failure, G.Output == H.Output {
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
        /// The sixth publisher to merge.
        public let f: F
        /// The seventh publisher to merge.
        public let g: G
        /// The eighth publisher to merge.
        public let h: H

        /// Creates a merge of eight publishers.
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
            self.g = g
            self.h = h
        }

        /// Attaches `subscriber` to every upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let links = startMerge(subscriber, sourceCount: 8)
            a.receive(subscriber: links[0])
            b.receive(subscriber: links[1])
            c.receive(subscriber: links[2])
            d.receive(subscriber: links[3])
            e.receive(subscriber: links[4])
            f.receive(subscriber: links[5])
            g.receive(subscriber: links[6])
            h.receive(subscriber: links[7])
        }
    }
}

extension Publishers.Merge8: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable, G: Equatable, H: Equatable {}
