import Foundation
@testable import ObjectGraph
import Testing

@Suite("sort keys")
struct SortKeysTests {
    /// A deterministic generator, so that failures reproduce.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 17 ^ state
        }
    }

    static let words = ["item 2", "item 10", "Item 3", "apple", "Äpfel", "zebra", "", "item 2", "éclair", "Zoo"]

    private func makeObjects(in context: ManagedObjectContext, count: Int) -> [AllTypes] {
        var generator = Generator(state: 42)
        return (0..<count).map { _ in
            let object = AllTypes(context: context)
            object.string = Self.words.randomElement(using: &generator)!
            object.int = Int.random(in: -3...3, using: &generator)
            object.double = [Double.infinity, -1.5, 0, 2.25].randomElement(using: &generator)!
            object.date = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...3, using: &generator)))
            object.uint8 = UInt8.random(in: 0...2, using: &generator)
            object.optionalInt = Bool.random(using: &generator) ? nil : Int.random(in: 0...2, using: &generator)
            object.optionalString = Bool.random(using: &generator) ? nil : Self.words.randomElement(using: &generator)
            return object
        }
    }

    static let orders: [[SortDescriptor<AllTypes>]] = [
        [SortDescriptor(\.string)],
        [SortDescriptor(\.string, order: .reverse)],
        [SortDescriptor(\.string, comparator: .lexical)],
        [SortDescriptor(\.int), SortDescriptor(\.string)],
        [SortDescriptor(\.double, order: .reverse), SortDescriptor(\.date)],
        [SortDescriptor(\.uint8), SortDescriptor(\.int, order: .reverse)],
        [SortDescriptor(\.optionalInt)],
        [SortDescriptor(\.optionalInt, order: .reverse), SortDescriptor(\.int)],
        [SortDescriptor(\.optionalString)],
    ]

    @Test("the extracted keys order objects exactly as the sort descriptors do", arguments: orders.indices)
    func matchesSortDescriptors(order: Int) throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            let objects = makeObjects(in: view, count: 200)
            try view.save()
            let descriptors = Self.orders[order]
            let keys = SortKeys(descriptors)
            let sorted = keys.sorted(objects)
            for (left, right) in zip(sorted, sorted.dropFirst()) {
                let byDescriptors = descriptors.lazy.map { $0.compare(left, right) }.first { $0 != .orderedSame } ?? .orderedSame
                #expect(byDescriptors != .orderedDescending, "\(left.string) / \(right.string)")
                #expect(keys.areInIncreasingOrder(left, right))
                #expect(!keys.areInIncreasingOrder(right, left))
            }
            #expect(Set(sorted.map(ObjectIdentifier.init)).count == objects.count)
        }
    }
}
