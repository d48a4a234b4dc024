/// One difference between a store file and the model that a store refused to migrate, listed
/// by ``ObjectGraphError/migrationRefused(path:changes:)``: what it is about, what the file and
/// the model say, why it was refused, and how to allow it.
///
/// ```swift
/// do {
///     container = try PersistentContainer(model: model, storeURL: url)
/// } catch ObjectGraphError.migrationRefused(_, let changes) {
///     for change in changes { print(change) }
///     // Review.rating: the file has String, the model Int — a String does not become an Int
///     // by itself. Fix: …
/// }
/// ```
public struct RefusedChange: Equatable, Sendable, CustomStringConvertible {
    /// The entity, by the model's name (the file's, for an entity the model lacks).
    public let entity: String
    /// The property or properties, if the change is about them.
    public let property: String?
    /// What the file has: a type (`String`, `Int16?`, `to-one Folder`), or `absent`.
    public let stored: String
    /// What the model declares, or `absent`.
    public let model: String
    /// Why the change cannot be made by itself.
    public let reason: String
    /// How to allow it: a rename annotation, a migration stage, a higher model version.
    public let fix: String

    /// Describes a refused change.
    public init(entity: String, property: String?, stored: String, model: String, reason: String, fix: String) {
        self.entity = entity
        self.property = property
        self.stored = stored
        self.model = model
        self.reason = reason
        self.fix = fix
    }

    /// `Review.rating: the file has String, the model Int — reason. Fix: fix.`
    public var description: String {
        "\(entity)\(property.map { "." + $0 } ?? ""): the file has \(stored), the model \(model) — \(reason). Fix: \(fix)."
    }
}
