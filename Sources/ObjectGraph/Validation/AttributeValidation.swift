/// A rule one attribute's value must follow for its object to be saved, declared with the
/// attribute:
///
/// ```swift
/// final class Review: ManagedObject {
///     @Attribute(validation: .range(1...5)) var rating: Int = 3
///     @Attribute(validation: .notEmpty) var title: String = ""
///     @Attribute(validation: .rule("must be a web address") { $0.scheme == "https" })
///     var link: URL = URL(string: "https://example.com")!
/// }
/// ```
///
/// Every `save()` checks the attributes of each inserted and updated object against their rules
/// (and then calls the object's ``ManagedObject/validate()``); a value that breaks one makes the
/// save throw ``ObjectGraphError/validationFailed(_:)`` naming the object, the property and the
/// reason, write nothing and keep the context's changes. A ``BatchUpdate`` checks the values it
/// sets against the same rules.
public struct AttributeValidation<Value> {
    /// The reason a value breaks the rule, or `nil` when it follows it.
    let failure: (Value) -> String?

    /// A rule that returns why a value breaks it, or `nil` when the value follows it.
    ///
    /// ```swift
    /// @Attribute(validation: AttributeValidation { $0 % 5 == 0 ? nil : "must be a multiple of 5, not \($0)" })
    /// var minutes: Int = 0
    /// ```
    public init(_ failure: @escaping (Value) -> String?) {
        self.failure = failure
    }

    /// A rule that `isValid` tells, with the reason a value that breaks it fails.
    ///
    /// ```swift
    /// @Attribute(validation: .rule("must not be in the past") { $0 >= .now }) var due: Date = .now
    /// ```
    public static func rule(_ reason: String, _ isValid: @escaping (Value) -> Bool) -> AttributeValidation {
        AttributeValidation { isValid($0) ? nil : reason }
    }
}

extension AttributeValidation where Value: Comparable {
    /// The value lies in `range`.
    public static func range(_ range: ClosedRange<Value>) -> AttributeValidation {
        AttributeValidation { range.contains($0) ? nil : "must be between \(range.lowerBound) and \(range.upperBound), not \($0)" }
    }

    /// The value is `minimum` or more.
    public static func atLeast(_ minimum: Value) -> AttributeValidation {
        AttributeValidation { $0 >= minimum ? nil : "must be at least \(minimum), not \($0)" }
    }

    /// The value is `maximum` or less.
    public static func atMost(_ maximum: Value) -> AttributeValidation {
        AttributeValidation { $0 <= maximum ? nil : "must be at most \(maximum), not \($0)" }
    }
}

extension AttributeValidation where Value: Collection {
    /// The value (a string, an array, a set) is not empty.
    public static var notEmpty: AttributeValidation {
        AttributeValidation { $0.isEmpty ? "must not be empty" : nil }
    }

    /// The value has `range` elements (characters of a string).
    public static func count(_ range: ClosedRange<Int>) -> AttributeValidation {
        AttributeValidation { range.contains($0.count) ? nil : "must have \(range.lowerBound) to \(range.upperBound) elements, not \($0.count)" }
    }
}
