import Foundation
@testable import ObjectGraph
import Testing

/// The one order of doubles in sorts: nil, -∞ … -0.0 = 0.0 … +∞, then NaN, every NaN equal;
/// ties by object ID. Reverse is the exact mirror, the tie-break aside.
@Suite("sorting doubles: NaN last, -0.0 with 0.0")
struct DoubleOrderTests {
    static let values: [Double?] = [.nan, 1, nil, -.infinity, 0.0, .infinity, -0.0, -1, -.nan, nil]

    @Test("fetches sort doubles and dates in that order, in SQL and in memory, forward and in reverse", arguments: StoreFlavor.allCases)
    func order(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            for (index, value) in Self.values.enumerated() {
                let object = AllTypes(context: view)
                object.int = index
                object.optionalDouble = value
                object.date = Date(timeIntervalSinceReferenceDate: value ?? 5)
            }
            try view.save()
            func indices(_ descriptors: [SortDescriptor<AllTypes>]) throws -> [Int] {
                try view.fetch(FetchRequest<AllTypes>(sortBy: descriptors)).map(\.int)
            }
            // nil (2, 9), -∞ (3), -1 (7), 0.0 and -0.0 (4, 6), 1 (1), +∞ (5), NaN (0, 8).
            #expect(try indices([SortDescriptor(\.optionalDouble)]) == [2, 9, 3, 7, 4, 6, 1, 5, 0, 8])
            #expect(try indices([SortDescriptor(\.optionalDouble, order: .reverse)]) == [0, 8, 5, 1, 4, 6, 7, 3, 2, 9])
            // Dates of nil values are 5 seconds: between 1 and +∞.
            #expect(try indices([SortDescriptor(\.date)]) == [3, 7, 4, 6, 1, 2, 9, 5, 0, 8])

            let objects = try view.fetch(FetchRequest<AllTypes>(sortBy: [SortDescriptor(\.int)]))
            let request = FetchRequest<AllTypes>(sortBy: [SortDescriptor(\.optionalDouble)])
            let byRequest = objects.sorted { lhs, rhs in
                request.areInIncreasingOrder(lhs, rhs) || (!request.areInIncreasingOrder(rhs, lhs) && lhs.objectID! < rhs.objectID!)
            }
            #expect(byRequest.map(\.int) == [2, 9, 3, 7, 4, 6, 1, 5, 0, 8])
        }
    }
}
