import Streams

/// Finds the property behind a key path from what the class layouts learned: a wrapper tells
/// its layout its own key path when it is read in ``ClassLayout/learnKeyPaths(from:_:)``.
/// Subentities' layouts count too: they learn the inherited properties under the declaring
/// class's key paths, at the same slots.
struct LayoutKeyPathResolver: QueryKeyPathResolver {
    let model: ObjectModel

    func property(for keyPath: AnyKeyPath, in entity: EntityDescription) -> PropertyDescription? {
        for candidate in [entity] + model.entities.filter({ $0 !== entity && $0.isKind(of: entity) }) {
            guard let slot = candidate.layout.slot(forWrapped: keyPath), entity.properties.indices.contains(slot),
                  candidate.properties.indices.contains(slot), candidate.properties[slot].name == entity.properties[slot].name else { continue }
            return entity.properties[slot]
        }
        return nil
    }
}

/// The key paths already read once on an object of their class: reading again would teach
/// nothing (they are computed properties, or not of the class).
enum LearnedKeyPaths {
    private static let lock = Lock()
    nonisolated(unsafe) private static var tried: Set<Attempt> = []  // guarded by lock

    private struct Attempt: Hashable {
        let layout: ObjectIdentifier
        let keyPath: AnyKeyPath
    }

    /// The key paths of `unknown` on `entity` not read yet on an object of its class.
    static func untried(_ unknown: [UnknownKeyPath], of entity: EntityDescription) -> [AnyKeyPath] {
        lock.withLock {
            unknown.filter { $0.entity === entity }.map(\.keyPath).filter { keyPath in
                !tried.contains(Attempt(layout: ObjectIdentifier(entity.layout), keyPath: keyPath))
            }
        }
    }

    /// Notes that `keyPaths` were read on an object of `entity`'s class.
    static func markTried(_ keyPaths: [AnyKeyPath], of entity: EntityDescription) {
        lock.withLock {
            for keyPath in keyPaths { tried.insert(Attempt(layout: ObjectIdentifier(entity.layout), keyPath: keyPath)) }
        }
    }
}
