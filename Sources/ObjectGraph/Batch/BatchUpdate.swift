import Foundation

/// Sets attributes on every stored object of `T` that a predicate matches, in one SQL
/// statement, without making the objects: run it with
/// ``ManagedObjectContext/execute(_:)-(BatchUpdate<T>)``.
///
/// ```swift
/// let done = BatchUpdate<Item>(where: #Predicate { $0.rank < 10 }, set: \.isDone, to: true)
///     .set(\.note, to: nil)
/// let result = try context.execute(done)
/// print(result.count)                              // how many items changed
/// ```
///
/// Values are typed: each key path comes with a value of its own type. The key paths must be
/// `@Attribute` properties of `T` (or of a superclass, written on that class: `\Item.title`);
/// relationships are changed object by object, where their inverses are kept in step. Setting a
/// property twice keeps the last value.
///
/// The batch works on the store, not on the context's unsaved changes; every context of the
/// container then hears about it as about a save (see `Docs/Queries.md`, *Batch updates and deletes*).
public struct BatchUpdate<T: ManagedObject>: Sendable {
    /// Which objects change; all of `T` when `nil`. It must translate to SQL entirely (see
    /// ``ManagedObjectContext/explain(_:)``), or the batch throws
    /// ``ObjectGraphError/batchPredicateNotTranslatable(entity:parts:)``.
    public var predicate: Predicate<T>?
    /// Whether objects of sub-entities change too (`true` by default).
    public var includesSubentities = true
    /// The assignments, in the order they were made.
    private(set) var assignments: [BatchAssignment] = []

    /// An update of the objects `predicate` matches that sets `keyPath` to `value`.
    ///
    /// ```swift
    /// BatchUpdate<Item>(where: #Predicate { $0.list?.name == "Inbox" }, set: \.isDone, to: false)
    /// ```
    public init<Value>(where predicate: Predicate<T>? = nil, set keyPath: ReferenceWritableKeyPath<T, Value> & Sendable, to value: Value) {
        self.predicate = predicate
        assignments = [BatchAssignment(keyPath, value)]
    }

    /// This update, setting `keyPath` to `value` as well.
    ///
    /// ```swift
    /// BatchUpdate<Item>(set: \.isDone, to: true).set(\.doneAt, to: .now)
    /// ```
    public func set<Value>(_ keyPath: ReferenceWritableKeyPath<T, Value> & Sendable, to value: Value) -> BatchUpdate<T> {
        var copy = self
        copy.assignments.removeAll { $0.keyPath == keyPath }
        copy.assignments.append(BatchAssignment(keyPath, value))
        return copy
    }
}

/// One property a batch update sets: its key path and the value in stored form.
struct BatchAssignment: Sendable {
    let keyPath: AnyKeyPath & Sendable
    /// The value's stored form and type, or the name of a type no attribute can have.
    let value: Result<(value: PropertyValue, type: AttributeType, isOptional: Bool), UnsupportedValue>

    struct UnsupportedValue: Error {
        let typeName: String
    }

    init<Root, Value>(_ keyPath: ReferenceWritableKeyPath<Root, Value> & Sendable, _ value: Value) {
        self.keyPath = keyPath
        if let (type, isOptional) = AttributeType.of(Value.self) {
            self.value = .success((PropertyValue(attribute: value), type, isOptional))
        } else {
            self.value = .failure(UnsupportedValue(typeName: String(describing: Value.self)))
        }
    }
}
