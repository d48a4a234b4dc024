/// What a save does when an object it writes holds the same values as another object under a
/// uniqueness constraint (``AttributeOptions/unique``, ``EntityIndex/unique(_:_:)``).
///
/// ```swift
/// importer.uniquenessPolicy = .upsert
/// let profile = Profile(context: importer)
/// profile.username = "alice"          // already saved: the save updates that object
/// try importer.save()
/// ```
///
/// Set it per context with ``ManagedObjectContext/uniquenessPolicy``. Under both policies
/// `nil` values collide with nothing, and strings are equal when Swift's `==` says so
/// (canonically equivalent), in the SQLite store as in memory.
public enum UniquenessPolicy: Sendable {
    /// The save throws ``ObjectGraphError/uniquenessViolation(_:)`` naming every collision;
    /// nothing is written and the context keeps its unsaved changes, so that you can change
    /// the objects and save again. The default.
    case error
    /// An inserted object that collides with one other object — saved, or inserted earlier in
    /// the same context — becomes that object: it takes its ``ObjectID`` (so the inserted
    /// object's ID changes), its attributes and to-one relationships replace the existing
    /// values, and its to-many relationships are added to the existing ones. A registered
    /// object that stood for the same row leaves the context, reported deleted by
    /// ``ManagedObjectContext/objectsDidChange``; other contexts see an update of the existing
    /// object. A collision upsert cannot resolve — an updated object's, an inserted object's
    /// with two different objects, or with an object of another entity of its hierarchy (an
    /// object cannot change class) — fails as under ``error``.
    case upsert
}
