/// The in-memory store's uniqueness constraints: for each constraint, which object holds each
/// ``UniqueKey``. A save stages its changes on top and commits them only if nothing collides,
/// so that a failed save leaves the index as it was without copying it.
///
/// It follows the order ``SQLiteStore/save(_:policy:)`` follows, so that both stores report the
/// same collisions: ``remove(_:)`` for deleted rows and for updated rows whose unique values
/// change, then ``add(_:)`` for those updated rows by object ID, then for inserted rows by key.
struct InMemoryUniqueIndex {
    private var holders: [IndexDescription: [UniqueKey: ObjectID]] = [:]
    /// The current save's changes: a new holder, or `nil` for a key the save frees.
    private var staged: [IndexDescription: [UniqueKey: ObjectID?]] = [:]

    private func holder(of key: UniqueKey, in constraint: IndexDescription) -> ObjectID? {
        if let staged = staged[constraint]?[key] { return staged }
        return holders[constraint]?[key]
    }

    /// Stages the release of `row`'s keys.
    mutating func remove(_ row: StoredRow) {
        for constraint in row.id.entity.uniquenessConstraints {
            guard let key = UniqueKey(constraint, slots: row.slots), holder(of: key, in: constraint) == row.id else { continue }
            staged[constraint, default: [:]][key] = .some(nil)
        }
    }

    /// Stages `row`'s keys, or returns what they collide with (then nothing is staged).
    mutating func add(_ row: StoredRow) -> [UniquenessConflict] {
        var conflicts: [UniquenessConflict] = []
        var keys: [(IndexDescription, UniqueKey)] = []
        for constraint in row.id.entity.uniquenessConstraints {
            guard let key = UniqueKey(constraint, slots: row.slots) else { continue }
            if let holder = holder(of: key, in: constraint), holder != row.id {
                conflicts.append(UniquenessConflict(constraint, slots: row.slots, objectID: row.id, conflictingObjectID: holder))
            }
            keys.append((constraint, key))
        }
        guard conflicts.isEmpty else { return conflicts }
        for (constraint, key) in keys { staged[constraint, default: [:]][key] = .some(row.id) }
        return []
    }

    /// Makes the staged changes permanent.
    mutating func commit() {
        for (constraint, changes) in staged {
            for (key, holder) in changes { holders[constraint, default: [:]][key] = holder }
        }
        staged = [:]
    }

    /// Forgets the staged changes.
    mutating func discard() {
        staged = [:]
    }
}
