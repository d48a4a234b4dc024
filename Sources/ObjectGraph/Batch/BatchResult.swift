/// What a batch update or delete did.
///
/// ```swift
/// let result = try context.delete(Item.self, where: #Predicate { $0.isDone })
/// print("\(result.count) items deleted, \(result.changes.deletedIDs.count) objects in all")
/// ```
public struct BatchResult: Sendable {
    /// The objects the batch's predicate matched and changed (an update: those that did not
    /// hold the values already) or deleted (a delete), in ID order.
    public let objectIDs: [ObjectID]
    /// Everything the batch wrote, as every context merged it and as the executing context's
    /// ``ManagedObjectContext/didSave`` posted it: for a delete, the objects a cascade reached
    /// too and the objects whose relationships lost a deleted object.
    public let changes: DidSave

    /// How many objects the predicate matched and changed or deleted.
    public var count: Int { objectIDs.count }
}
