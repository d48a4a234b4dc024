/// The `relationshipKeyPathsForRefreshing` of a fetch request, checked against the model and
/// ready to walk backwards from a changed related object to the fetched objects that reach it.
struct RefreshPaths {
    /// One hop of a path: the relationship's entity and name, and the slot of its inverse on
    /// the destination, which is how the walk goes back.
    struct Hop {
        let sourceEntity: EntityDescription
        let name: String
        let inverseSlot: Int
    }

    /// One path: the hops, then the property read at the end.
    struct Path {
        let hops: [Hop]
        let finalEntity: EntityDescription
        let finalProperty: String
    }

    let paths: [Path]

    /// Checks every path: each component but the last must be a relationship with an inverse,
    /// and the last must exist on the entity reached.
    init(_ keyPaths: Set<String>, root: EntityDescription, model: ObjectModel) throws(ObjectGraphError) {
        var paths: [Path] = []
        for keyPath in keyPaths.sorted() {
            let components = keyPath.split(separator: ".").map(String.init)
            guard components.count >= 2 else {
                throw .invalidRefreshingKeyPath(path: keyPath, entity: root.name, reason: "it does not go through a relationship; write it as relationship.property, for example bucket.name")
            }
            var entity = root
            var hops: [Hop] = []
            for name in components.dropLast() {
                guard let property = entity.property(named: name) else {
                    throw .invalidRefreshingKeyPath(path: keyPath, entity: root.name, reason: "\(entity.name) has no property '\(name)'")
                }
                guard let relationship = property.relationship, let destination = model.entity(named: relationship.destinationName) else {
                    throw .invalidRefreshingKeyPath(path: keyPath, entity: root.name, reason: "\(entity.name).\(name) is not a relationship")
                }
                guard let inverse = relationship.inverseIndex else {
                    throw .invalidRefreshingKeyPath(path: keyPath, entity: root.name, reason: "\(entity.name).\(name) has no inverse, so a change cannot be traced back; declare one")
                }
                hops.append(Hop(sourceEntity: entity, name: name, inverseSlot: inverse))
                entity = destination
            }
            let last = components[components.count - 1]
            let reachable = model.entities.filter { $0.isKind(of: entity) }
            guard reachable.contains(where: { $0.property(named: last) != nil }) else {
                throw .invalidRefreshingKeyPath(path: keyPath, entity: root.name, reason: "\(entity.name) has no property '\(last)'")
            }
            paths.append(Path(hops: hops, finalEntity: entity, finalProperty: last))
        }
        self.paths = paths
    }

    var isEmpty: Bool { paths.isEmpty }

    /// The entities a change along some path can come from (every entity a path reaches, with
    /// its subentities): a merge must bring in their objects for the walk back to start.
    var reachedEntityNames: Set<String> {
        var names: Set<String> = []
        for path in paths {
            for entity in path.hops.dropFirst().map(\.sourceEntity) + [path.finalEntity] {
                names.formUnion(entity.selfAndSubentityNames)
            }
        }
        return names
    }

    /// The objects at the start of some path that reach `object` through a change of `keys`:
    /// for every level at which `object` can stand on a path, if it changed the component read
    /// at that level, walk the inverses back to level zero.
    func origins(of object: ManagedObject, changedKeys keys: Set<String>, in context: ManagedObjectContext) -> [ManagedObject] {
        guard let entity = object.entity else { return [] }
        var found: [ManagedObject] = []
        for path in paths {
            // Level i (1...hops.count) is the object reached after i hops.
            for level in stride(from: path.hops.count, through: 1, by: -1) {
                let standsHere = level == path.hops.count
                    ? entity.isKind(of: path.finalEntity)
                    : entity.isKind(of: path.hops[level].sourceEntity)
                let readKey = level == path.hops.count ? path.finalProperty : path.hops[level].name
                guard standsHere, keys.contains(readKey) else { continue }
                var frontier = [object]
                for hop in path.hops.prefix(level).reversed() {
                    frontier = frontier.flatMap { context.targets(of: $0, slot: hop.inverseSlot) }
                }
                found += frontier
            }
        }
        return found
    }
}
