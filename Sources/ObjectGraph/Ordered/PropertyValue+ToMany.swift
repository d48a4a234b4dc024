/// To-many values, set or ordered, handled alike where the order does not matter and kept where
/// it does.
extension PropertyValue {
    /// A to-many value holding `ids`: in that order when `isOrdered`, as a set otherwise.
    static func toMany(_ ids: [ObjectID], isOrdered: Bool) -> PropertyValue {
        isOrdered ? .orderedObjects(ids) : .objects(Set(ids))
    }

    /// The members of a to-many value, in order for an ordered one; `nil` for any other value.
    var members: [ObjectID]? {
        switch self {
        case .objects(let ids): Array(ids)
        case .orderedObjects(let ids): ids
        default: nil
        }
    }

    /// Whether the value is a to-many one (set or ordered).
    var isToManyValue: Bool { members != nil }

    /// The same to-many value without `gone`, order kept; `nil` if it holds none of them (or is
    /// no to-many value).
    func removingMembers(_ gone: Set<ObjectID>) -> PropertyValue? {
        switch self {
        case .objects(let ids) where !ids.isDisjoint(with: gone): .objects(ids.subtracting(gone))
        case .orderedObjects(let ids) where ids.contains(where: gone.contains): .orderedObjects(ids.filter { !gone.contains($0) })
        default: nil
        }
    }
}
