/// The values of one of zip's upstreams that wait for their counterparts, first in first out.
///
/// The first value is kept inline and only the ones behind it in a ``FIFOQueue``: upstreams
/// that take turns (the common case) never hold more than one value, so pairing them touches
/// no array.
@usableFromInline
struct ZipLane<Value> {
    /// The oldest waiting value; `nil` only when nothing waits.
    @usableFromInline var front: Value?
    /// The values behind `front`, oldest first.
    @usableFromInline var behind = FIFOQueue<Value>()

    @inlinable init() {}

    @inlinable @inline(__always) var isEmpty: Bool { front == nil }

    @inlinable var count: Int { front == nil ? 0 : 1 + behind.count }

    @inlinable
    @inline(__always)
    mutating func append(_ value: Value) {
        if front == nil { front = value } else { behind.append(value) }
    }

    /// The oldest value, removed; `emptied` goes up by one if the lane is left empty. The lane
    /// must not be empty.
    @inlinable
    @inline(__always)
    mutating func removeFirst(countingEmptied emptied: inout Int) -> Value {
        let first = front.take().unsafelyUnwrapped
        if behind.isEmpty { emptied += 1 } else { front = behind.removeFirst() }
        return first
    }

    /// Empties the lane into `discards`, to be released after unlocking.
    @inlinable
    mutating func removeAll(into discards: inout Discards) {
        guard let first = front.take() else { return }
        discards.add(first)
        if !behind.isEmpty { discards.add(behind.takeAll()) }
    }
}
