/// A model class whose entity a previous version of the model called by another name.
///
/// ```swift
/// final class Book: ManagedObject, RenamedEntity {
///     static let originalEntityName = "Novel"
///     @Attribute var title: String = ""
/// }
/// ```
///
/// A store written by the previous model keeps the entity's objects, relationships and indexes
/// under the new name (see `Docs/Migrations.md`). A subclass inherits the declaration of its
/// superclass; a subclass that was renamed itself declares its own, different name
/// (`class var originalEntityName` on the superclass lets it override).
public protocol RenamedEntity: ManagedObject {
    /// The entity's name in the previous version of the model.
    static var originalEntityName: String { get }
}

/// Reads ``RenamedEntity/originalEntityName`` for one class of a model.
enum RenamedEntityName {
    /// The class's original name, unless it is only the one its superclass declares.
    static func of(_ objectClass: ManagedObject.Type, superclass: ManagedObject.Type?) -> String? {
        guard let renamed = objectClass as? any RenamedEntity.Type else { return nil }
        let name = renamed.originalEntityName
        if let inherited = superclass as? any RenamedEntity.Type, inherited.originalEntityName == name { return nil }
        return name
    }
}
