/// One object whose save would break a uniqueness constraint: it holds the same values as
/// another object, saved or in the same save.
///
/// ```swift
/// do {
///     try context.save()
/// } catch ObjectGraphError.uniquenessViolation(let conflicts) {
///     for conflict in conflicts {
///         print(conflict.propertyNames, conflict.values, conflict.objectID, conflict.conflictingObjectID)
///     }
/// }
/// ```
public struct UniquenessConflict: Equatable, Sendable, CustomStringConvertible {
    /// The entity that declares the constraint (the saved objects may be of its sub-entities).
    public let entityName: String
    /// The constrained properties.
    public let propertyNames: [String]
    /// The values the object would save, one per property; to-one relationships as object IDs.
    public let values: [PropertyValue]
    /// The object whose save collides: inserted or updated in this save.
    public let objectID: ObjectID
    /// The object that holds the values already: saved in the store, or written earlier in the
    /// same save.
    public let conflictingObjectID: ObjectID

    /// Describes a collision of `objectID` with `conflictingObjectID` under a constraint.
    public init(entityName: String, propertyNames: [String], values: [PropertyValue], objectID: ObjectID, conflictingObjectID: ObjectID) {
        self.entityName = entityName
        self.propertyNames = propertyNames
        self.values = values
        self.objectID = objectID
        self.conflictingObjectID = conflictingObjectID
    }

    init(_ constraint: IndexDescription, slots: [PropertyValue], objectID: ObjectID, conflictingObjectID: ObjectID) {
        self.init(
            entityName: constraint.entityName, propertyNames: constraint.propertyNames,
            values: constraint.slots.map { slots[$0] }, objectID: objectID, conflictingObjectID: conflictingObjectID)
    }

    /// `conflicts` in the order both stores report them: by object, then by the order of the
    /// constraints in the object's entity.
    static func ordered(_ conflicts: [UniquenessConflict]) -> [UniquenessConflict] {
        func rank(_ conflict: UniquenessConflict) -> Int {
            conflict.objectID.entity.uniquenessConstraints.firstIndex {
                $0.entityName == conflict.entityName && $0.propertyNames == conflict.propertyNames
            } ?? 0
        }
        return conflicts.sorted { $0.objectID == $1.objectID ? rank($0) < rank($1) : $0.objectID < $1.objectID }
    }

    /// `Profile (username) = ("alice"): Profile/7 collides with Profile/2`.
    public var description: String {
        let shown = values.map { value -> String in
            switch value {
            case .string(let string): "\"\(string)\""
            case .null: "nil"
            case .bool(let bool): "\(bool)"
            case .integer(let int): "\(int)"
            case .double(let double): "\(double)"
            case .date(let date): "\(date)"
            case .data(let data): "\(data)"
            case .uuid(let uuid): "\(uuid)"
            case .object(let id): "\(id)"
            case .objects(let ids): "\(ids.sorted())"
            case .orderedObjects(let ids): "\(ids)"
            case .unloaded: "(not loaded)"
            }
        }
        return "\(entityName) (\(propertyNames.joined(separator: ", "))) = (\(shown.joined(separator: ", "))): "
            + "\(objectID) collides with \(conflictingObjectID)"
    }
}
