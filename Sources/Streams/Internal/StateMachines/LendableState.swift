/// Per-value state that a ``StateLendingMachine`` lends to the holder of an open turn: zip's
/// pairing lanes (``ZipPairing``), combineLatest's latest values (``LatestValues``).
@usableFromInline
package protocol LendableState {
    /// Empty state for `upstreamCount` upstreams at positions `0..<upstreamCount`.
    init(upstreamCount: Int)
    /// How many upstreams there are.
    var upstreamCount: Int { get }
    /// Forgets every value, into `discards`.
    mutating func removeAll(into discards: inout Discards)
}
