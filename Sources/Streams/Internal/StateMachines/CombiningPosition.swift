/// Which upstream of `zip` or `combineLatest` an ``IndexedLink`` feeds, as a type: its position
/// and how its values become the machine's elements.
///
/// Known where the operator is specialised, the position folds away: a link's `receive(_:)`
/// wraps its value and picks its lane or latest value with no closure call and no branch on the
/// position, and a link is two words, small enough to be passed in registers.
@usableFromInline
package protocol CombiningPosition {
    /// The shape of the combination the upstream takes part in.
    associatedtype Shape: CombinationShape
    /// The upstream's output.
    associatedtype Input

    /// The upstream's position, from 0.
    static var index: Int { get }
    /// `input`, as the element of the upstream at ``index``.
    static func element(_ input: Input) -> CombiningElement<Shape.A, Shape.B, Shape.C, Shape.D>
}

/// The first upstream of a combination of the shape `Shape`.
@usableFromInline
package enum FirstUpstream<Shape: CombinationShape>: CombiningPosition {
    @inlinable package static var index: Int { 0 }

    @inlinable
    @inline(__always)
    package static func element(_ input: Shape.A) -> CombiningElement<Shape.A, Shape.B, Shape.C, Shape.D> { .first(input) }
}

/// The second upstream of a combination of the shape `Shape`.
@usableFromInline
package enum SecondUpstream<Shape: CombinationShape>: CombiningPosition {
    @inlinable package static var index: Int { 1 }

    @inlinable
    @inline(__always)
    package static func element(_ input: Shape.B) -> CombiningElement<Shape.A, Shape.B, Shape.C, Shape.D> { .second(input) }
}

/// The third upstream of a combination of the shape `Shape`.
@usableFromInline
package enum ThirdUpstream<Shape: CombinationShape>: CombiningPosition {
    @inlinable package static var index: Int { 2 }

    @inlinable
    @inline(__always)
    package static func element(_ input: Shape.C) -> CombiningElement<Shape.A, Shape.B, Shape.C, Shape.D> { .third(input) }
}

/// The fourth upstream of a combination of the shape `Shape`.
@usableFromInline
package enum FourthUpstream<Shape: CombinationShape>: CombiningPosition {
    @inlinable package static var index: Int { 3 }

    @inlinable
    @inline(__always)
    package static func element(_ input: Shape.D) -> CombiningElement<Shape.A, Shape.B, Shape.C, Shape.D> { .fourth(input) }
}
