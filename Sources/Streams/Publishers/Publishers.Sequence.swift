extension Publishers {
    /// A publisher that delivers the elements of a sequence, within demand, then finishes.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher.sink { print($0) }
    /// ```
    public struct Sequence<Elements: Swift.Sequence, Failure: Error>: Publisher {
        /// The elements' type.
        public typealias Output = Elements.Element

        /// The elements every subscriber receives.
        public let sequence: Elements

        /// Creates a publisher of `sequence`.
        @inlinable
        public init(sequence: Elements) { self.sequence = sequence }

        /// Delivers the elements as the subscriber requests them; an empty sequence finishes at
        /// once.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            SequenceSubscription.start(sequence, completion: .finished, downstream: subscriber)
        }
    }
}

extension Publishers.Sequence: Equatable where Elements: Equatable {}
extension Publishers.Sequence: Sendable where Elements: Sendable {}

extension Sequence {
    /// A publisher of this sequence's elements.
    @inlinable
    public var publisher: Publishers.Sequence<Self, Never> { Publishers.Sequence(sequence: self) }
}
