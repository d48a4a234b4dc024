/// What a ``MigrationStage`` works with: the file's objects as the previous model reads them,
/// and as the new model reads and writes them, both inside the migration's transaction.
///
/// ```swift
/// for old in try migration.old!.fetch(FetchRequest<V1.Item>()) {
///     let item = try migration.newObject(for: old, as: V2.Item.self)
///     item.priority = old.isUrgent ? 2 : 0
/// }
/// ```
///
/// Both contexts belong to the stage's queue (the stage runs on it); use them only inside the
/// stage. An object keeps its key: the new model's object for an old one is the one with the
/// same key in the entity that replaced the old one's.
public final class Migration {
    /// The previous model's objects, read-only: every value the file had before the migration,
    /// including properties and entities the new model no longer has. `nil` if the stage names
    /// no previous model.
    public let old: ManagedObjectContext?
    /// The new model's objects: new properties start at their initial values (`nil` for
    /// optionals), converted ones too. Saved when the stage returns.
    public let new: ManagedObjectContext
    /// The stage's name.
    public let stageName: String
    private let newEntityNames: [String: String]

    init(old: ManagedObjectContext?, new: ManagedObjectContext, stageName: String, newEntityNames: [String: String]) {
        self.old = old
        self.new = new
        self.stageName = stageName
        self.newEntityNames = newEntityNames
    }

    /// The new model's object for `object`, an object of ``old``.
    ///
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)`` if the new model has no entity for
    ///   the object's (it was removed, or it is converted into another), or
    ///   ``ObjectGraphError/objectNotFound(_:)``.
    public func newObject(for object: ManagedObject) throws -> ManagedObject {
        guard let id = object.objectID else { throw ObjectGraphError.objectNotInContext("\(object)") }
        guard let name = newEntityNames[id.entity.name], let entity = new.model.entity(named: name) else {
            throw ObjectGraphError.unknownEntity("\(id.entity.name) (the new model has no entity for it)")
        }
        return try new.existingObject(with: ObjectID(entity: entity, primaryKey: id.primaryKey))
    }

    /// The new model's object for `object` as `type`.
    public func newObject<T: ManagedObject>(for object: ManagedObject, as type: T.Type) throws -> T {
        let found = try newObject(for: object)
        guard let typed = found as? T else { throw ObjectGraphError.unknownEntity("\(found.objectID?.entity.name ?? "?") is not a \(T.self)") }
        return typed
    }
}
