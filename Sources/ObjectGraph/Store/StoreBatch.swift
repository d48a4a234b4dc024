/// A batch update or delete for a store to run in one transaction, without the contexts making
/// an object per row: every row of ``entities`` that ``condition`` selects.
struct StoreBatch: Sendable {
    /// What happens to the selected rows.
    enum Change: Sendable {
        /// The attribute slots take these values (rows that hold them all already are left
        /// alone, as a context leaves an object whose property is set to its own value).
        case update([Int: PropertyValue])
        /// The rows go, and each relationship's delete rule is followed from them.
        case delete
    }

    /// The entity the batch was written for: its properties are the ones ``Change/update(_:)``
    /// and ``condition`` name.
    let entity: EntityDescription
    /// The concrete entities whose rows count: ``entity``, and its sub-entities if asked.
    let entities: [EntityDescription]
    /// The predicate, translated exactly (``TranslatedPredicate/isExact``); `nil` selects every row.
    let condition: QueryCondition?
    let change: Change
    /// Finds the selected rows in a store that runs no SQL: the IDs that the predicate, evaluated
    /// in memory, matches in `snapshot` (a copy of the store, so that no lock is held while the
    /// predicate runs).
    let matchInMemory: @Sendable (_ snapshot: any PersistentStore) throws -> [ObjectID]
    /// Who runs the batch, for the persistent history.
    var author = ""
}

/// What a batch wrote, for the contexts to merge as they merge a save.
struct StoreBatchResult: Sendable {
    /// The rows the batch selected and changed (an update) or deleted (a delete), in ID order.
    var selectedIDs: [ObjectID] = []
    /// Every row deleted: the selected ones and those a cascade reached.
    var deletedIDs: [ObjectID] = []
    /// Every remaining row the batch changed, as stored now: the updated rows, and the rows a
    /// delete rule changed (a relationship that no longer holds a deleted object).
    var updatedRows: [StoredRow] = []
    /// For each of ``updatedRows``, the names of the properties that changed.
    var changedKeys: [ObjectID: Set<String>] = [:]
    /// The batch's place in the persistent history, when the store recorded it.
    var historyToken: Int64?
}
