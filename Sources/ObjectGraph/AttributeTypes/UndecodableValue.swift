/// A stored value that the model's type for its attribute cannot read any more — an enum case
/// removed in a later version, a `Codable` type whose shape changed — listed by
/// ``ObjectGraphError/undecodableValues(path:values:)``.
///
/// ```swift
/// do {
///     container = try PersistentContainer(model: model, storeURL: url)
/// } catch ObjectGraphError.undecodableValues(_, let values) {
///     for value in values { print(value) }
///     // Task/7.status holds 4, which Status cannot read: Status has no case whose raw value is 4
/// }
/// ```
public struct UndecodableValue: Equatable, Sendable, CustomStringConvertible {
    /// The entity, by the model's name.
    public let entity: String
    /// The attribute.
    public let property: String
    /// The object that holds the value, when known.
    public let objectID: ObjectID?
    /// The value as stored: a raw value (text in quotes), or JSON text.
    public let storedValue: String
    /// The attribute's Swift type, which cannot read it.
    public let type: String
    /// Why it cannot.
    public let reason: String

    /// Describes a value of `entity.property` that `type` cannot read.
    public init(entity: String, property: String, objectID: ObjectID?, storedValue: String, type: String, reason: String) {
        self.entity = entity
        self.property = property
        self.objectID = objectID
        self.storedValue = storedValue
        self.type = type
        self.reason = reason
    }

    /// `Task/7.status holds 4, which Status cannot read: …`.
    public var description: String {
        "\(objectID.map(String.init(describing:)) ?? entity).\(property) holds \(storedValue), which \(type) cannot read: \(reason)"
    }
}
