/// Object IDs in order, each once, with set-speed membership: the working form of an ordered
/// to-many value while it is patched (a set relationship's value goes through it too, in any
/// order).
struct OrderedIDs {
    private(set) var list: [ObjectID]
    private var members: Set<ObjectID>

    init(_ ids: [ObjectID]) {
        list = []
        list.reserveCapacity(ids.count)
        members = []
        for id in ids where members.insert(id).inserted { list.append(id) }
    }

    func contains(_ id: ObjectID) -> Bool { members.contains(id) }

    /// Appends `id` unless it is there.
    mutating func insert(_ id: ObjectID) {
        if members.insert(id).inserted { list.append(id) }
    }

    /// Removes `id` if it is there, keeping the others' order.
    mutating func remove(_ id: ObjectID) {
        guard members.remove(id) != nil else { return }
        list.removeAll { $0 == id }
    }
}
