/// The error a model class throws from ``ManagedObject/validate()`` to stop a save, with the
/// reason and, when the problem is one property's, its name.
///
/// ```swift
/// override func validate() throws {
///     guard end >= start else { throw ValidationError("must not end before it starts", property: "end") }
/// }
/// ```
///
/// Any other error thrown there stops the save too; its description is the reason.
public struct ValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Why the object cannot be saved.
    public let reason: String
    /// The property at fault, if it is one property's problem.
    public let property: String?

    /// An error saying why the object cannot be saved, naming `property` if it is its problem.
    public init(_ reason: String, property: String? = nil) {
        self.reason = reason
        self.property = property
    }

    /// The reason, after the property's name if there is one.
    public var description: String { property.map { "\($0) \(reason)" } ?? reason }
}

/// One object a save refused because it is not valid, listed by
/// ``ObjectGraphError/validationFailed(_:)``: an attribute that breaks its
/// ``AttributeValidation``, or the object's own ``ManagedObject/validate()`` throwing.
///
/// ```swift
/// do {
///     try context.save()
/// } catch ObjectGraphError.validationFailed(let failures) {
///     for failure in failures { print(failure) }   // Review/4.rating: must be between 1 and 5, not 9
/// }
/// ```
public struct ValidationFailure: Equatable, Sendable, CustomStringConvertible {
    /// The object (its entity is ``ObjectID/entity``).
    public let objectID: ObjectID
    /// The property at fault; `nil` when the object as a whole is (its `validate()` threw an
    /// error that names no property).
    public let property: String?
    /// Why it cannot be saved.
    public let reason: String

    /// Describes why `objectID` (its `property`, if given) cannot be saved.
    public init(objectID: ObjectID, property: String?, reason: String) {
        self.objectID = objectID
        self.property = property
        self.reason = reason
    }

    /// `Review/4.rating: must be between 1 and 5, not 9`, or `Trip/2: …` for the whole object.
    public var description: String { "\(objectID)\(property.map { "." + $0 } ?? ""): \(reason)" }
}
