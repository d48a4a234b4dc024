import Foundation
@testable import ObjectGraph
import Testing

@Suite("integer sort keys")
struct IntegerSortKeysTests {
    private func makeObjects(in context: ManagedObjectContext, count: Int, seed: UInt64) -> [AllTypes] {
        var generator = SortKeysTests.Generator(state: seed)
        return (0..<count).map { _ in
            let object = AllTypes(context: context)
            object.int = Int.random(in: -3...3, using: &generator)
            object.int64 = Bool.random(using: &generator) ? .min : Int64.random(in: -2...2, using: &generator)
            object.optionalInt = Bool.random(using: &generator) ? nil : Int.random(in: -2...2, using: &generator)
            object.string = SortKeysTests.words.randomElement(using: &generator)!
            return object
        }
    }

    static let orders: [[SortDescriptor<AllTypes>]] = [
        [],
        [SortDescriptor(\.int)],
        [SortDescriptor(\.int, order: .reverse)],
        [SortDescriptor(\.int64)],
        [SortDescriptor(\.int64, order: .reverse)],
        [SortDescriptor(\.optionalInt)],
        [SortDescriptor(\.optionalInt, order: .reverse)],
        [SortDescriptor(\.int), SortDescriptor(\.optionalInt, order: .reverse)],
        [SortDescriptor(\.optionalInt), SortDescriptor(\.int64), SortDescriptor(\.int, order: .reverse)],
    ]

    @Test("integer keys read from slots order objects exactly as the general sort keys do", arguments: orders.indices)
    func matchesSortKeys(order: Int) throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            let objects = makeObjects(in: view, count: 300, seed: UInt64(order) + 7)
            try view.save()
            let descriptors = Self.orders[order]
            let entity = try #require(TestModel.model.entity(named: "AllTypes"))
            let keys = try #require(IntegerSortKeys(descriptors, entity: entity, learningFrom: objects.first))
            let fast = try #require(keys.sorted(objects.shuffled()))
            let general = SortKeys(descriptors).sorted(objects.shuffled())
            #expect(fast.map(ObjectIdentifier.init) == general.map(ObjectIdentifier.init))
        }
    }

    @Test("a string, double or computed key is left to the general sort keys")
    func otherKeysAreNotTaken() throws {
        let entity = try #require(TestModel.model.entity(named: "AllTypes"))
        #expect(IntegerSortKeys([SortDescriptor<AllTypes>(\.string)], entity: entity) == nil)
        #expect(IntegerSortKeys([SortDescriptor<AllTypes>(\.double)], entity: entity) == nil)
        #expect(IntegerSortKeys([SortDescriptor<AllTypes>(\.int), SortDescriptor(\.uint8)], entity: entity) == nil)
        #expect(IntegerSortKeys([SortDescriptor<AllTypes>(\.hashValue)], entity: entity) == nil)
    }

    @Test("a sorted fetch over an entity and its subentity, with unsaved changes, orders as the general sort keys do",
          arguments: StoreFlavor.allCases)
    func fetchWithSubentitiesAndPendingChanges(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let background = container.newBackgroundContext()
        try background.performAndWait {
            for index in 0..<60 {
                let content = index.isMultiple(of: 3) ? ImageContent(context: background) : Content(context: background)
                content.rank = index % 7
                content.name = "c\(index)"
            }
            try background.save()
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            var request = FetchRequest<Content>(sortBy: [SortDescriptor(\.rank, order: .reverse)])
            let first = try reader.fetch(request)
            #expect(first.count == 60)
            // Unsaved: an update that moves an object, an insert, a delete.
            first[5].rank = 100
            let added = ImageContent(context: reader)
            added.rank = 3
            reader.delete(first[10])
            let fetched = try reader.fetch(request)
            let expected = SortKeys(request.sortDescriptors).sorted(fetched.shuffled())
            #expect(fetched.map(ObjectIdentifier.init) == expected.map(ObjectIdentifier.init))
            #expect(fetched.first === first[5])
            #expect(fetched.contains(added))
            #expect(!fetched.contains(first[10]))

            request.fetchOffset = 2
            request.fetchLimit = 5
            #expect(try reader.fetch(request).map(ObjectIdentifier.init) == Array(expected[2..<7]).map(ObjectIdentifier.init))
        }
    }
}
