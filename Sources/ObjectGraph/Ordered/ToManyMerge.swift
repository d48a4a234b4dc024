/// How a to-many relationship changed in one place merges with what the store holds
/// meanwhile — the one rule the context (merging a sibling's save under an unsaved change) and
/// both stores (writing a save whose base is behind) follow.
///
/// Membership merges as a set relationship's does: the store's members, plus the additions and
/// minus the removals made locally (relative to `base`, what the local side read). The order:
///
/// - If the local side did not reorder (its members that were in `base` keep `base`'s relative
///   order), the store's order stands; each local addition goes right after the member that
///   precedes it locally (so an append stays last, an insert at the front stays first).
/// - If it did reorder, its order wins; members it does not hold (added elsewhere meanwhile)
///   follow, in the store's order.
///
/// So a reorder in one context and an insert in another both survive; two concurrent reorders
/// end in the later save's order.
enum ToManyMerge {
    /// Applies a to-many change as additions and removals relative to what the context read
    /// (`committed`), so that two contexts adding different objects to one relationship both
    /// keep theirs; an ordered one's order merges as described above.
    static func merged(current: PropertyValue, committed: PropertyValue, new: PropertyValue) -> PropertyValue {
        if case .orderedObjects(let local) = new {
            let base = committed.members ?? []
            return .orderedObjects(mergedOrder(current: current.members ?? base, base: base, local: local))
        }
        guard case .objects(let newTargets) = new else { return .objects([]) }
        let before = committed.objectIDs
        let now: Set<ObjectID> = current.isToManyValue ? current.objectIDs : before
        return .objects(now.union(newTargets.subtracting(before)).subtracting(before.subtracting(newTargets)))
    }

    /// The ordered form of ``merged(current:committed:new:)``.
    static func mergedOrder(current: [ObjectID], base: [ObjectID], local: [ObjectID]) -> [ObjectID] {
        let baseSet = Set(base)
        let localSet = Set(local)
        let removed = baseSet.subtracting(localSet)
        let added = local.filter { !baseSet.contains($0) }
        let kept = current.filter { !removed.contains($0) }
        let keptSet = Set(kept)
        let locallyReordered = local.filter(baseSet.contains) != base.filter(localSet.contains)
        if locallyReordered {
            var members = keptSet
            members.formUnion(added)
            let ordered = local.filter(members.contains)
            return ordered + kept.filter { !localSet.contains($0) }
        }
        // Each addition hangs after its nearest local predecessor that the result keeps.
        var leading: [ObjectID] = []
        var following: [ObjectID: [ObjectID]] = [:]
        var anchor: ObjectID?
        let addedSet = Set(added)
        for id in local {
            if addedSet.contains(id) {
                guard !keptSet.contains(id) else { continue }  // added elsewhere too: keep the store's place
                if let anchor { following[anchor, default: []].append(id) } else { leading.append(id) }
            } else if keptSet.contains(id) {
                anchor = id
            }
        }
        var result = leading
        result.reserveCapacity(kept.count + added.count)
        for id in kept {
            result.append(id)
            if let hanging = following[id] { result += hanging }
        }
        return result
    }
}
