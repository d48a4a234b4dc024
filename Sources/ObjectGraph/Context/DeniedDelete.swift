/// An object a save or batch delete would have deleted although a relationship under the
/// ``DeleteRule/deny`` rule still holds other objects, listed by
/// ``ObjectGraphError/deleteDenied(_:)``: both sides of the relationship.
///
/// ```swift
/// do {
///     try context.save()
/// } catch ObjectGraphError.deleteDenied(let denied) {
///     for delete in denied { print(delete) }   // Album/3 (tracks: Track/7, Track/9)
///     context.rollback()                       // or move the tracks elsewhere and save again
/// }
/// ```
public struct DeniedDelete: Equatable, Sendable, CustomStringConvertible {
    /// The object that was to be deleted.
    public let objectID: ObjectID
    /// Its relationship whose rule is `deny`.
    public let relationship: String
    /// The objects the relationship still holds, in ID order.
    public let relatedIDs: [ObjectID]

    /// Describes a delete that `relationship` of `objectID`, still holding `relatedIDs`, denies.
    public init(objectID: ObjectID, relationship: String, relatedIDs: [ObjectID]) {
        self.objectID = objectID
        self.relationship = relationship
        self.relatedIDs = relatedIDs.sorted()
    }

    /// `Album/3 (tracks: Track/7, Track/9)`.
    public var description: String {
        "\(objectID) (\(relationship): \(relatedIDs.map(String.init(describing:)).joined(separator: ", ")))"
    }

    /// The denials in a stable order: by object, then relationship.
    static func ordered(_ denials: [DeniedDelete]) -> [DeniedDelete] {
        denials.sorted { ($0.objectID, $0.relationship) < ($1.objectID, $1.relationship) }
    }
}
