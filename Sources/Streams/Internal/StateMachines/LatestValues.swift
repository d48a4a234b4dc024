/// Where ``CombineLatestStateMachine`` keeps each upstream's latest value, one place per upstream
/// position, and how they become a combination.
///
/// The operators use ``TypedLatestValues``, which keeps each value in its upstream's own type
/// and makes the tuple they publish, so that combining allocates nothing; the machine's tests use
/// ``UniformLatestValues``, which makes an array.
@usableFromInline
package protocol LatestValues: LendableState {
    /// A value of one upstream, as its link hands it in.
    associatedtype Element
    /// The latest value of each upstream, in position order.
    associatedtype Combination

    /// Whether the upstream at `index` has sent a value.
    func hasValue(at index: Int) -> Bool
    /// Makes `element` the latest value of the upstream at `index`, which sent it; returns the
    /// value it replaces, for the caller to release after unlocking.
    mutating func replace(at index: Int, with element: Element) -> Element?
    /// The latest value of every upstream, as one combination. Every upstream must have one.
    func combination() -> Combination
}

/// The latest values of two to four upstreams of different types, combined into the tuple
/// `Shape` says (see ``CombinationShape``); positions past the shape's upstreams are never used.
@usableFromInline
package struct TypedLatestValues<Shape: CombinationShape>: LatestValues {
    @usableFromInline package typealias Element = CombiningElement<Shape.A, Shape.B, Shape.C, Shape.D>
    @usableFromInline package typealias Combination = Shape.Output

    @usableFromInline var a: Shape.A?
    @usableFromInline var b: Shape.B?
    @usableFromInline var c: Shape.C?
    @usableFromInline var d: Shape.D?

    @inlinable
    package init(upstreamCount: Int) {
        precondition(upstreamCount == Shape.upstreamCount, "TypedLatestValues: \(Shape.upstreamCount) upstreams, not \(upstreamCount)")
    }

    @inlinable package var upstreamCount: Int { Shape.upstreamCount }

    @inlinable
    package func hasValue(at index: Int) -> Bool {
        switch index {
        case 0: a != nil
        case 1: b != nil
        case 2: c != nil
        default: d != nil
        }
    }

    @inlinable
    package mutating func replace(at index: Int, with element: Element) -> Element? {
        switch element {
        case .first(let value): defer { a = value }; return a.map(Element.first)
        case .second(let value): defer { b = value }; return b.map(Element.second)
        case .third(let value): defer { c = value }; return c.map(Element.third)
        case .fourth(let value): defer { d = value }; return d.map(Element.fourth)
        }
    }

    @inlinable
    package func combination() -> Combination {
        Shape.combine(a.unsafelyUnwrapped, b.unsafelyUnwrapped, c, d)
    }

    @inlinable
    package mutating func removeAll(into discards: inout Discards) {
        if let value = a.take() { discards.add(value) }
        if let value = b.take() { discards.add(value) }
        if let value = c.take() { discards.add(value) }
        if let value = d.take() { discards.add(value) }
    }
}

/// The latest values of any number of upstreams of one type; a combination is an array.
@usableFromInline
package struct UniformLatestValues<Value>: LatestValues {
    @usableFromInline var values: [Value?]

    @inlinable
    package init(upstreamCount: Int) {
        values = Array(repeating: nil, count: upstreamCount)
    }

    @inlinable package var upstreamCount: Int { values.count }

    @inlinable
    package func hasValue(at index: Int) -> Bool { values[index] != nil }

    @inlinable
    package mutating func replace(at index: Int, with element: Value) -> Value? {
        defer { values[index] = element }
        return values[index]
    }

    @inlinable
    package func combination() -> [Value] {
        values.map(\.unsafelyUnwrapped)
    }

    @inlinable
    package mutating func removeAll(into discards: inout Discards) {
        for index in values.indices {
            if let value = values[index].take() { discards.add(value) }
        }
    }
}
