import Foundation

/// Deletes every stored object of `T` that a predicate matches, in a few SQL statements,
/// without making the objects: run it with ``ManagedObjectContext/execute(_:)-(BatchDelete<T>)``
/// or ``ManagedObjectContext/delete(_:where:includesSubentities:)``.
///
/// ```swift
/// try context.execute(BatchDelete<Item>(where: #Predicate { $0.isDone }))
/// ```
///
/// Each relationship's ``DeleteRule`` is followed as when the objects are deleted one by one:
/// `cascade` deletes the related objects too (and follows their rules), `nullify` removes the
/// deleted objects from the related objects' inverse relationships, `noAction` leaves them, and
/// `deny` refuses the whole batch (``ObjectGraphError/deleteDenied(_:)``) while an object it would
/// delete still holds one it would not.
///
/// The batch works on the store, not on the context's unsaved changes; every context of the
/// container then hears about it as about a save (see `Docs/Queries.md`, *Batch updates and deletes*).
public struct BatchDelete<T: ManagedObject>: Sendable {
    /// Which objects go; all of `T` when `nil`. It must translate to SQL entirely, or the batch
    /// throws ``ObjectGraphError/batchPredicateNotTranslatable(entity:parts:)``.
    public var predicate: Predicate<T>?
    /// Whether objects of sub-entities go too (`true` by default).
    public var includesSubentities = true

    /// A delete of the objects `predicate` matches (all objects of `T` when `nil`).
    public init(where predicate: Predicate<T>? = nil) {
        self.predicate = predicate
    }
}
