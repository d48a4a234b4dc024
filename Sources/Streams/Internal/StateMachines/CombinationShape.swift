/// The tuple that `zip` or `combineLatest` of two to four upstreams publishes, and how one value
/// of each upstream becomes that tuple.
///
/// ``TypedZipQueues`` and ``TypedLatestValues`` form their combination through it, so that the
/// combination *is* downstream's input: it goes downstream as formed, with no conversion through
/// a closure. (A closure that takes and returns a generic tuple is called through a thunk that
/// copies the tuple whole right after it was written field by field; the processor cannot
/// forward those stores to that load, and the stall cost `combineLatest` about half its time.)
@usableFromInline
package protocol CombinationShape {
    /// The first upstream's output.
    associatedtype A
    /// The second upstream's output.
    associatedtype B
    /// The third upstream's output; `Never` for two upstreams.
    associatedtype C
    /// The fourth upstream's output; `Never` for fewer than four upstreams.
    associatedtype D
    /// The tuple published.
    associatedtype Output

    /// How many upstreams there are: 2, 3 or 4.
    static var upstreamCount: Int { get }
    /// The tuple of one value of each upstream; `c` and `d` are `nil` exactly where there is no
    /// such upstream.
    static func combine(_ a: A, _ b: B, _ c: C?, _ d: D?) -> Output
}

/// The shape of two upstreams' combination: `(A, B)`.
@usableFromInline
package enum PairShape<A, B>: CombinationShape {
    @usableFromInline package typealias C = Never
    @usableFromInline package typealias D = Never

    @inlinable package static var upstreamCount: Int { 2 }

    @inlinable
    @inline(__always)
    package static func combine(_ a: A, _ b: B, _ c: Never?, _ d: Never?) -> (A, B) { (a, b) }
}

/// The shape of three upstreams' combination: `(A, B, C)`.
@usableFromInline
package enum TripleShape<A, B, C>: CombinationShape {
    @usableFromInline package typealias D = Never

    @inlinable package static var upstreamCount: Int { 3 }

    @inlinable
    @inline(__always)
    package static func combine(_ a: A, _ b: B, _ c: C?, _ d: Never?) -> (A, B, C) { (a, b, c.unsafelyUnwrapped) }
}

/// The shape of four upstreams' combination: `(A, B, C, D)`.
@usableFromInline
package enum QuadrupleShape<A, B, C, D>: CombinationShape {
    @inlinable package static var upstreamCount: Int { 4 }

    @inlinable
    @inline(__always)
    package static func combine(_ a: A, _ b: B, _ c: C?, _ d: D?) -> (A, B, C, D) {
        (a, b, c.unsafelyUnwrapped, d.unsafelyUnwrapped)
    }
}
