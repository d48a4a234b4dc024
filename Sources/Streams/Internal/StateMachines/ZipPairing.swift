/// Zip's per-value state: each upstream's values waiting for their counterparts, and how many
/// upstreams have one. It is what ``ZipStateMachine`` lends to the holder of an open turn
/// (see `StateMachineShell+Lent.swift`), so it holds nothing else.
@usableFromInline
package struct ZipPairing<Queues: ZipQueues>: LendableState {
    @usableFromInline var waiting: Queues
    /// How many upstreams have at least one value waiting.
    @usableFromInline var upstreamsWithValues = 0

    @inlinable
    package init(upstreamCount: Int) {
        waiting = Queues(upstreamCount: upstreamCount)
    }

    @inlinable package var upstreamCount: Int { waiting.upstreamCount }

    /// How many values of the upstream at `index` wait for their counterparts.
    @inlinable
    package func count(at index: Int) -> Int { waiting.count(at: index) }

    /// Whether no value of the upstream at `index` waits for its counterparts.
    @inlinable
    package func isEmpty(at index: Int) -> Bool { waiting.isEmpty(at: index) }

    /// Queues `element`, from the upstream at `index`, or, if it completes a combination,
    /// returns that combination, taking the first waiting value of every other upstream.
    @inlinable
    @inline(__always)
    package mutating func pair(_ element: Queues.Element, at index: Int) -> Queues.Combination? {
        // `upstreamsWithValues` goes down by the lanes the combination empties.
        var emptied = 0
        let combination: Queues.Combination
        if waiting.isEmpty(at: index) {
            guard upstreamsWithValues + 1 == waiting.upstreamCount else {
                upstreamsWithValues += 1
                waiting.enqueue(element, at: index)
                return nil
            }
            // Every other upstream has a value waiting and this one had none: the element
            // completes a combination without waiting itself (its lane, never counted, stays
            // empty).
            combination = waiting.dequeueCombination(completingWith: element, at: index, countingEmptied: &emptied)
        } else {
            waiting.enqueue(element, at: index)
            guard upstreamsWithValues == waiting.upstreamCount else { return nil }
            combination = waiting.dequeueCombination(countingEmptied: &emptied)
        }
        upstreamsWithValues -= emptied
        return combination
    }

    /// Empties every queue into `discards`.
    @inlinable
    package mutating func removeAll(into discards: inout Discards) {
        for index in 0..<waiting.upstreamCount {
            waiting.removeAll(at: index, into: &discards)
        }
        upstreamsWithValues = 0
    }
}
