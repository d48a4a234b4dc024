import Synchronization

/// A unique identifier for a subscriber or subscription, used for debugging and bookkeeping.
public struct CombineIdentifier: Hashable, Sendable, CustomStringConvertible {
    private static let counter = Atomic<UInt64>(0)
    private let rawValue: UInt64

    /// Creates a new identifier, different from every other one made in this process.
    public init() {
        rawValue = Self.counter.add(1, ordering: .relaxed).newValue
    }

    /// Creates an identifier for `object`, equal to every other identifier made from the same
    /// object while it lives. As Combine's, it is the object's address (described as
    /// `0x` and the address in hexadecimal); counted identifiers never reach an address.
    public init(_ object: AnyObject) {
        rawValue = UInt64(UInt(bitPattern: ObjectIdentifier(object)))
    }

    /// A textual form such as `0x1a2b`.
    public var description: String { "0x" + String(rawValue, radix: 16) }
}

/// A type that has a ``CombineIdentifier``.
///
/// Classes get one for free, derived from their identity.
public protocol CustomCombineIdentifierConvertible {
    /// The identifier of this subscriber or subscription.
    var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
    /// An identifier derived from the instance's identity.
    public var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }
}
