/// Where ``ZipStateMachine`` keeps the values that wait for their counterparts: one queue per
/// upstream position, and how one value of each becomes a combination.
///
/// The operators use ``TypedZipQueues``, which keeps each upstream's values in that upstream's
/// own type and makes a tuple, so that pairing values allocates nothing; the machine's tests use
/// ``UniformZipQueues``, which makes an array.
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
    /// Removes the first value of every queue, as one combination. No queue may be empty.
    mutating func dequeueCombination() -> Combination
    /// The combination of `element`, from the upstream at `index`, whose queue is empty, and
    /// the first value of every other queue, which it removes. No other queue may be empty.
    mutating func dequeueCombination(completingWith element: Element, at index: Int) -> Combination
    /// Empties the queue of the upstream at `index` into `discards`.
    mutating func removeAll(at index: Int, into discards: inout Discards)
}

extension ZipQueues {
    /// The element queued, then the first value of every queue taken.
    @inlinable
    package mutating func dequeueCombination(completingWith element: Element, at index: Int) -> Combination {
        enqueue(element, at: index)
        return dequeueCombination()
    }
}

/// The queues of up to four upstreams of different types; positions past ``upstreamCount`` are
/// never used, and their values are `nil` in the combination.
@usableFromInline
package struct TypedZipQueues<A, B, C, D>: ZipQueues {
    @usableFromInline package typealias Element = CombiningElement<A, B, C, D>
    @usableFromInline package typealias Combination = (A, B, C?, D?)

    @usableFromInline package let upstreamCount: Int
    @usableFromInline var a = ZipLane<A>()
    @usableFromInline var b = ZipLane<B>()
    @usableFromInline var c = ZipLane<C>()
    @usableFromInline var d = ZipLane<D>()

    @inlinable
    package init(upstreamCount: Int) {
        precondition((2...4).contains(upstreamCount), "TypedZipQueues: 2 to 4 upstreams")
        self.upstreamCount = upstreamCount
    }

    @inlinable
    package mutating func enqueue(_ element: Element, at index: Int) {
        switch element {
        case .first(let value): a.append(value)
        case .second(let value): b.append(value)
        case .third(let value): c.append(value)
        case .fourth(let value): d.append(value)
        }
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

    @inlinable
    package mutating func dequeueCombination() -> Combination {
        (a.removeFirst(), b.removeFirst(), upstreamCount > 2 ? c.removeFirst() : nil, upstreamCount > 3 ? d.removeFirst() : nil)
    }

    /// Pairs `element` with the other queues' first values without queueing it.
    @inlinable
    package mutating func dequeueCombination(completingWith element: Element, at index: Int) -> Combination {
        assert(count(at: index) == 0, "TypedZipQueues: the completing element's queue is not empty")
        let first: A = if case .first(let value) = element { value } else { a.removeFirst() }
        let second: B = if case .second(let value) = element { value } else { b.removeFirst() }
        let third: C? = if case .third(let value) = element { value } else { upstreamCount > 2 ? c.removeFirst() : nil }
        let fourth: D? = if case .fourth(let value) = element { value } else { upstreamCount > 3 ? d.removeFirst() : nil }
        return (first, second, third, fourth)
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
    package mutating func dequeueCombination() -> [Value] {
        queues.indices.map { queues[$0].removeFirst() }
    }

    @inlinable
    package mutating func removeAll(at index: Int, into discards: inout Discards) {
        queues[index].removeAll(into: &discards)
    }
}
