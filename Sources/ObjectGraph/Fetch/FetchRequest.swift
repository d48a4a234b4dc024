import Foundation

/// What to fetch: objects of one entity that match a predicate, in an order, within a window.
///
/// ```swift
/// var request = FetchRequest<Content>(
///     predicate: #Predicate { $0.isEven },
///     sortBy: [SortDescriptor(\.name)])
/// request.fetchLimit = 20
/// let page = try context.fetch(request)
/// ```
public struct FetchRequest<T: ManagedObject>: Sendable {
    /// Which objects to include; all when `nil`.
    public var predicate: Predicate<T>? {
        didSet { compiledPredicate = predicate == nil ? nil : CompiledPredicateCache() }
    }
    /// The order of the results; the fetch order of the store when empty.
    public var sortDescriptors: [SortDescriptor<T>]
    /// At most this many results; no limit when `nil`.
    public var fetchLimit: Int?
    /// How many leading results to skip.
    public var fetchOffset: Int = 0
    /// Whether objects of sub-entities are included (`true` by default).
    public var includesSubentities = true
    /// Whether unsaved inserts and deletes of the context count (`true` by default).
    public var includesPendingChanges = true
    /// Properties of related objects whose change should report the fetched object as updated,
    /// for example `"bucket.name"`: used by fetched-results controllers.
    public var relationshipKeyPathsForRefreshing: Set<String> = []
    /// Runs the whole fetch in memory even on a store that runs SQL: the reference the SQL
    /// path is tested against.
    var evaluatesInMemory = false
    /// The predicate compiled for evaluation in memory, made on first use.
    private var compiledPredicate: CompiledPredicateCache<T>?

    /// Creates a request.
    public init(predicate: Predicate<T>? = nil, sortBy sortDescriptors: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        compiledPredicate = predicate == nil ? nil : CompiledPredicateCache()
    }

    /// Whether `object` matches the predicate; a predicate that throws is reported as
    /// ``ObjectGraphError/predicateFailed(entity:message:)``, and so is one that would trap in
    /// Swift (an integer overflow, a division by zero, a range whose bounds are reversed), in
    /// memory as in SQL.
    public func matches(_ object: T) throws(ObjectGraphError) -> Bool {
        guard let predicate else { return true }
        do {
            let compiled = compiledPredicate?.compiled(predicate, for: object) ?? CompiledPredicate(predicate)
            return try compiled.evaluate(object)
        } catch {
            throw Self.predicateFailed(error)
        }
    }

    /// The error of a predicate that threw `error`.
    static func predicateFailed(_ error: any Error) -> ObjectGraphError {
        if case .predicateFailed(_, let message) = error as? ObjectGraphError {
            return .predicateFailed(entity: String(describing: T.self), message: message)
        }
        return .predicateFailed(entity: String(describing: T.self), message: String(describing: error))
    }

    /// Whether `lhs` sorts before `rhs` under the sort descriptors, in the order fetches use:
    /// `nil` first, and for doubles and dates NaN after every number (`SortDescriptor` alone
    /// gives NaN no place).
    public func areInIncreasingOrder(_ lhs: T, _ rhs: T) -> Bool {
        for descriptor in sortDescriptors {
            switch SortKeys.compare(lhs, rhs, by: descriptor) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return false
    }
}
