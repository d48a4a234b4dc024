/// The rules both stores follow for the objects whose to-many relationship changes though
/// nothing in their rows does: a one-to-many's owner, whose members are the objects whose key
/// names it (see ``InMemoryMembership``). Such an owner gets a new version and is reported, as
/// refreshed if the save wrote it and as detached otherwise.
extension PersistentStore {
    /// The owners an update moves a key (a to-one with a to-many inverse) away from although
    /// the saving context read another value: a save elsewhere set it meanwhile, so this
    /// context could not send the owner's side. `write` is the update as resolved (a key the
    /// store keeps under ``MergePolicy/storeWins`` does not move); `current`, the row before it.
    func formerOwners(of update: RowUpdate, current: StoredRow, write: [Int: PropertyValue]) -> [(owner: ObjectID, key: String)] {
        var owners: [(owner: ObjectID, key: String)] = []
        for (slot, value) in write {
            guard let relationship = update.id.entity.properties[slot].relationship, !relationship.isToMany,
                  relationship.inverseIsToMany, let inverse = relationship.inverseName,
                  case .object(let former) = current.slots[slot], current.slots[slot] != update.committed[slot],
                  current.slots[slot] != value else { continue }
            owners.append((former, inverse))
        }
        return owners
    }

    /// The owners whose to-many relationship holds `row` through its keys (to-ones with a to-many
    /// inverse), with the inverse's name: deleting the row takes it out of them.
    func ownersThroughKeys(of row: StoredRow) -> [(owner: ObjectID, key: String)] {
        row.id.entity.properties.compactMap { property in
            guard let relationship = property.relationship, !relationship.isToMany, relationship.inverseIsToMany,
                  let inverse = relationship.inverseName, case .object(let owner) = row.slots[property.index] else { return nil }
            return (owner, inverse)
        }
    }
}

extension PropertyDescription {
    /// For a to-many relationship of `owner`, the slot of `target`'s side of their pair when
    /// it reads the same pair (a to-many inverse); `nil` without one, and for a relationship that
    /// is its own inverse, whose join table each object reads as the owner only.
    func mirroredSlot(owner: ObjectID, target: ObjectID) -> Int? {
        guard let relationship, relationship.isToMany, relationship.inverseIsToMany, let inverse = relationship.inverseIndex else { return nil }
        let isOwnInverse = relationship.inverseName == name && inverse == index && target.entity.rootName == owner.entity.rootName
        return isOwnInverse ? nil : inverse
    }
}
