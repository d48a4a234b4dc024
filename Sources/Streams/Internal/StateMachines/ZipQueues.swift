/// Where ``ZipStateMachine`` keeps the values that wait for their counterparts: one queue per
/// upstream position, and how one value of each becomes a combination.
///
/// The operators use ``TypedZipQueues``, which keeps each upstream's values in that upstream's
/// own type and makes the tuple zip publishes, so that pairing values allocates nothing; the
/// machine's tests use ``UniformZipQueues``, which makes an array.
@usableFromInline
package protocol ZipQueues {
    /// A value of one upstream, as its link hands it in.
    associatedtype Element
    /// One value of each upstream, in position order.
    associatedtype Combination

    /// Empty queues for `upstreamCount` upstreams at positions `0..<upstreamCount`.
    init(upstreamCount: Int)
    /// How many upstreams there are.
    var upstreamCount: Int { get }
    /// Appends `element` to the queue of the upstream at `index`, which sent it.
    mutating func enqueue(_ element: Element, at index: Int)
    /// How many values of the upstream at `index` wait.
    func count(at index: Int) -> Int
    /// Whether no value of the upstream at `index` waits.
    func isEmpty(at index: Int) -> Bool
    /// Removes the first value of every queue, as one combination; `emptied` goes up by the
    /// number of queues that this leaves empty. No queue may be empty.
    mutating func dequeueCombination(countingEmptied emptied: inout Int) -> Combination
    /// The combination of `element`, from the upstream at `index`, whose queue is empty, and
    /// the first value of every other queue, which it removes; `emptied` goes up by the number
    /// of those other queues that this leaves empty (the queue at `index` stays empty and is not
    /// counted). No other queue may be empty.
    mutating func dequeueCombination(completingWith element: Element, at index: Int, countingEmptied emptied: inout Int) -> Combination
    /// Empties the queue of the upstream at `index` into `discards`.
    mutating func removeAll(at index: Int, into discards: inout Discards)
}

extension ZipQueues {
    /// The element queued, then the first value of every queue taken (the element's queue,
    /// emptied again, not counted).
    @inlinable
    package mutating func dequeueCombination(completingWith element: Element, at index: Int, countingEmptied emptied: inout Int) -> Combination {
        enqueue(element, at: index)
        emptied -= 1
        return dequeueCombination(countingEmptied: &emptied)
    }
}

/// The queues of two to four upstreams of different types, combined into the tuple `Shape` says
/// (see ``CombinationShape``); positions past the shape's upstreams are never used.
@usableFromInline
package struct TypedZipQueues<Shape: CombinationShape>: ZipQueues {
    @usableFromInline package typealias Element = CombiningElement<Shape.A, Shape.B, Shape.C, Shape.D>
    @usableFromInline package typealias Combination = Shape.Output

    @usableFromInline var a = ZipLane<Shape.A>()
    @usableFromInline var b = ZipLane<Shape.B>()
    @usableFromInline var c = ZipLane<Shape.C>()
    @usableFromInline var d = ZipLane<Shape.D>()

    @inlinable
    package init(upstreamCount: Int) {
        precondition(upstreamCount == Shape.upstreamCount, "TypedZipQueues: \(Shape.upstreamCount) upstreams, not \(upstreamCount)")
    }

    @inlinable package var upstreamCount: Int { Shape.upstreamCount }

    @inlinable
    @inline(__always)
    package mutating func enqueue(_ element: Element, at index: Int) {
        // Comparisons, not a switch: see `isEmpty(at:)`.
        if case .first(let value) = element { a.append(value) }
        else if case .second(let value) = element { b.append(value) }
        else if case .third(let value) = element { c.append(value) }
        else if case .fourth(let value) = element { d.append(value) }
    }

    @inlinable
    package func count(at index: Int) -> Int {
        switch index {
        case 0: a.count
        case 1: b.count
        case 2: c.count
        default: d.count
        }
    }

    // Comparisons, not a switch: zip's upstreams take turns, and a jump table over the
    // alternating index is an indirect branch whose target changes every value.
    @inlinable
    @inline(__always)
    package func isEmpty(at index: Int) -> Bool {
        if index == 0 { return a.isEmpty }
        if index == 1 { return b.isEmpty }
        return index == 2 ? c.isEmpty : d.isEmpty
    }

    @inlinable
    @inline(__always)
    package mutating func dequeueCombination(countingEmptied emptied: inout Int) -> Combination {
        Shape.combine(
            a.removeFirst(countingEmptied: &emptied), b.removeFirst(countingEmptied: &emptied),
            upstreamCount > 2 ? c.removeFirst(countingEmptied: &emptied) : nil,
            upstreamCount > 3 ? d.removeFirst(countingEmptied: &emptied) : nil)
    }

    /// Pairs `element` with the other queues' first values without queueing it.
    @inlinable
    @inline(__always)
    package mutating func dequeueCombination(completingWith element: Element, at index: Int, countingEmptied emptied: inout Int) -> Combination {
        assert(isEmpty(at: index), "TypedZipQueues: the completing element's queue is not empty")
        let first: Shape.A = if case .first(let value) = element { value } else { a.removeFirst(countingEmptied: &emptied) }
        let second: Shape.B = if case .second(let value) = element { value } else { b.removeFirst(countingEmptied: &emptied) }
        let third: Shape.C? = if case .third(let value) = element { value } else { upstreamCount > 2 ? c.removeFirst(countingEmptied: &emptied) : nil }
        let fourth: Shape.D? = if case .fourth(let value) = element { value } else { upstreamCount > 3 ? d.removeFirst(countingEmptied: &emptied) : nil }
        return Shape.combine(first, second, third, fourth)
    }

    @inlinable
    package mutating func removeAll(at index: Int, into discards: inout Discards) {
        switch index {
        case 0: a.removeAll(into: &discards)
        case 1: b.removeAll(into: &discards)
        case 2: c.removeAll(into: &discards)
        default: d.removeAll(into: &discards)
        }
    }
}

/// The queues of any number of upstreams of one type; a combination is an array.
@usableFromInline
package struct UniformZipQueues<Value>: ZipQueues {
    @usableFromInline var queues: [ZipLane<Value>]

    @inlinable
    package init(upstreamCount: Int) {
        queues = Array(repeating: ZipLane(), count: upstreamCount)
    }

    @inlinable package var upstreamCount: Int { queues.count }

    @inlinable
    package mutating func enqueue(_ element: Value, at index: Int) {
        queues[index].append(element)
    }

    @inlinable
    package func count(at index: Int) -> Int { queues[index].count }

    @inlinable
    package func isEmpty(at index: Int) -> Bool { queues[index].isEmpty }

    @inlinable
    package mutating func dequeueCombination(countingEmptied emptied: inout Int) -> [Value] {
        queues.indices.map { queues[$0].removeFirst(countingEmptied: &emptied) }
    }

    @inlinable
    package mutating func removeAll(at index: Int, into discards: inout Discards) {
        queues[index].removeAll(into: &discards)
    }
}
