/// The objects a fetch request matches, handed out a batch at a time, so that a large result is
/// walked without holding every object at once.
///
/// ```swift
/// for batch in try context.fetchBatches(FetchRequest<Profile>(sortBy: [SortDescriptor(\.rank)]), batchSize: 500) {
///     for profile in batch { export(profile) }
/// }   // each batch can go once the loop moves on
/// ```
///
/// Which objects, and in which order, is decided when the batches are made, from the IDs
/// alone where SQL answers the request (see ``ManagedObjectContext/fetchIdentifiers(_:)``).
/// Each batch's objects are made (or found registered, with their unsaved changes) when the
/// batch is reached, in one query; an object no longer in the store is left out. Iterate on the
/// context's queue.
public struct FetchBatches<Object: ManagedObject>: Sequence {
    /// The context the objects are made in.
    public let context: ManagedObjectContext
    /// The IDs of every object, in order.
    public let objectIDs: [ObjectID]
    /// How many objects a batch holds (the last may hold fewer).
    public let batchSize: Int

    /// The number of objects.
    public var count: Int { objectIDs.count }

    /// Yields the batches in order.
    public func makeIterator() -> Iterator {
        Iterator(batches: self)
    }

    /// Makes each batch when it is reached.
    public struct Iterator: IteratorProtocol {
        let batches: FetchBatches
        var start = 0

        /// The next batch, or `nil` after the last.
        public mutating func next() -> [Object]? {
            guard start < batches.objectIDs.count else { return nil }
            let end = Swift.min(start + batches.batchSize, batches.objectIDs.count)
            let ids = Array(batches.objectIDs[start..<end])
            start = end
            return batches.context.objects(with: ids).compactMap { $0 as? Object }
        }
    }
}

extension ManagedObjectContext {
    /// The objects `request` matches, in its order and window, made `batchSize` at a time as
    /// the batches are walked.
    ///
    /// See ``FetchBatches``.
    ///
    /// - Throws: what ``fetchIdentifiers(_:)`` throws.
    public func fetchBatches<T: ManagedObject>(_ request: FetchRequest<T>, batchSize: Int) throws -> FetchBatches<T> {
        FetchBatches(context: self, objectIDs: try fetchIdentifiers(request), batchSize: max(batchSize, 1))
    }

    /// The objects with `ids` that exist, in that order: registered ones as they are, the others
    /// read from the store together.
    func objects(with ids: [ObjectID]) -> [ManagedObject] {
        if let engine = coordinator.store.queryEngine {
            do {
                return try registeredOrLoaded(ids, engine: engine)
            } catch {
                deferredError = deferredError ?? (error as? ObjectGraphError)
                return []
            }
        }
        return ids.compactMap { object(with: $0) }
    }
}
