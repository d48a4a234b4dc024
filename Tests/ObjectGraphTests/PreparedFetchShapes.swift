import Foundation
@testable import ObjectGraph

/// Fetch requests of a few fixed shapes with random captured values, edge values included,
/// for the prepared-fetch tests.
struct PreparedFetchShapes {
    var generator: SeededGenerator
    let strings: [String]

    private mutating func pick<T>(_ values: [T]) -> T { values.randomElement(using: &generator)! }
    private mutating func maybe<T>(_ values: [T]) -> T? { Int.random(in: 0..<3, using: &generator) == 0 ? nil : pick(values) }

    /// A request of a random shape, and how it reads; most leave out the sub-entity (a
    /// hierarchy's rows are read in two statements, which are not cached).
    mutating func request() -> (FetchRequest<QueryItem>, String) {
        var (request, text) = shapedRequest()
        request.includesSubentities = Int.random(in: 0..<5, using: &generator) == 0
        return (request, text + (request.includesSubentities ? ", with subentities" : ""))
    }

    private mutating func shapedRequest() -> (FetchRequest<QueryItem>, String) {
        switch Int.random(in: 0..<14, using: &generator) {
        case 0:
            let value = pick(QueryModel.ints)
            return (FetchRequest(predicate: #Predicate { $0.int == value }), "int == \(value)")
        case 1:
            let value = pick(strings)
            return (FetchRequest(predicate: #Predicate { $0.string == value }), "string == \(value.debugDescription)")
        case 2:
            let value = maybe(QueryModel.ints)
            return (FetchRequest(predicate: #Predicate { $0.optionalInt == value }), "optionalInt == \(String(describing: value))")
        case 3:
            let value = pick(QueryModel.doubles)
            return (FetchRequest(predicate: #Predicate { $0.double < value }), "double < \(value)")
        case 4:
            let (low, text) = (pick(QueryModel.ints), pick(strings))
            var request = FetchRequest<QueryItem>(predicate: #Predicate { $0.int >= low && $0.string != text }, sortBy: [SortDescriptor(\.int)])
            request.fetchLimit = pick([nil, 3])
            return (request, "int >= \(low) && string != \(text.debugDescription) by int, limit \(String(describing: request.fetchLimit))")
        case 5:
            let value = maybe(strings)
            return (FetchRequest(predicate: #Predicate { $0.optionalString == value }, sortBy: [SortDescriptor(\.string)]),
                    "optionalString == \(String(describing: value)) by string")
        case 6:
            let value = pick(QueryModel.dates)
            return (FetchRequest(predicate: #Predicate { $0.date > value }), "date > \(value.timeIntervalSinceReferenceDate)")
        case 7:
            let value = pick(QueryModel.ints)
            return (FetchRequest(predicate: #Predicate { $0.int / value > 1 }), "int / \(value) > 1")
        case 8:
            let values = [pick(QueryModel.ints), pick(QueryModel.ints)]
            return (FetchRequest(predicate: #Predicate { values.contains($0.int) }), "\(values).contains(int)")
        case 9:
            let value = Bool.random(using: &generator)
            return (FetchRequest(predicate: #Predicate { $0.flag == value }), "flag == \(value)")
        case 10:
            let value = pick(strings)
            return (FetchRequest(predicate: #Predicate { $0.string.contains(value) }), "string.contains(\(value.debugDescription))")
        case 11:
            var request = FetchRequest<QueryItem>(sortBy: [SortDescriptor(\.double, order: .reverse)])
            request.fetchLimit = 5
            request.fetchOffset = pick([0, 2])
            return (request, "all by double reversed, limit 5, offset \(request.fetchOffset)")
        case 12:
            let (first, second) = (pick(QueryModel.ints), maybe(QueryModel.ints))
            return (FetchRequest(predicate: #Predicate { $0.int == first || $0.optionalInt == second }),
                    "int == \(first) || optionalInt == \(String(describing: second))")
        default:
            let value = pick(QueryModel.groupNames)
            return (FetchRequest(predicate: #Predicate { $0.group?.name == value }), "group?.name == \(value.debugDescription)")
        }
    }

    /// Changes a few items, and saves unless told not to (the next fetches then see unsaved
    /// changes, and take no statement from the cache).
    mutating func edit(_ context: ManagedObjectContext, saving: Bool) throws {
        try context.save()
        let items = try context.fetch(FetchRequest<QueryItem>())
        let groups = try context.fetch(FetchRequest<QueryGroup>())
        for item in items where Int.random(in: 0..<6, using: &generator) == 0 {
            QueryStoreFiller.randomize(item, groups: groups, tags: [], strings: strings, using: &generator)
        }
        if saving { try context.save() }
    }
}
