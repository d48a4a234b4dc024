import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

/// A model whose indexes are declared as users declare them, queried as users query.
final class IndexedProfile: ManagedObject, IndexedEntity {
    @Attribute(.unique) var username: String = ""
    @Attribute(.indexed) var rank: Int = 0
    @Attribute var city: String = ""
    static let indexes: [EntityIndex] = [.index(\IndexedProfile.city, \IndexedProfile.rank)]
}

@Suite("Translated fetches use the indexes the model declares")
struct DeclaredIndexQueryTests {
    static let model = try! ObjectModel(entities: [IndexedProfile.self])

    func withProfiles(_ body: (ManagedObjectContext) throws -> Void) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let container = try SQLiteFixture.container(at: directory.appendingPathComponent("profiles.sqlite"), model: Self.model)
            let context = container.viewContext
            try context.performAndWait {
                for index in 0..<200 {
                    let profile = IndexedProfile(context: context)
                    profile.username = "user\(index)"
                    profile.rank = index
                    profile.city = index.isMultiple(of: 2) ? "Oslo" : "Lima"
                }
                try context.save()
                try body(context)
            }
        }
    }

    /// Whether the plan searches an index and scans no table.
    func usesAnIndex(_ explanation: FetchExplanation) -> Bool {
        explanation.queryPlan.contains { $0.contains("USING INDEX") || $0.contains("USING COVERING INDEX") }
            && !explanation.queryPlan.contains { $0.hasPrefix("SCAN") && !$0.contains("INDEX") }
    }

    @Test("== on a unique string, a range on an indexed integer, and a compound predicate each search an index")
    func indexesServeQueries() throws {
        try withProfiles { context in
            let name = "user42"
            let byName = FetchRequest<IndexedProfile>(predicate: #Predicate { $0.username == name })
            let byNamePlan = try context.explain(byName)
            #expect(usesAnIndex(byNamePlan), "\(byNamePlan)")
            #expect(try context.fetch(byName).map(\.rank) == [42])

            let byRank = FetchRequest<IndexedProfile>(predicate: #Predicate { $0.rank < 10 })
            let byRankPlan = try context.explain(byRank)
            #expect(usesAnIndex(byRankPlan), "\(byRankPlan)")
            #expect(try context.count(for: byRank) == 10)

            let city = "Oslo"
            let compound = FetchRequest<IndexedProfile>(predicate: #Predicate { $0.city == city && $0.rank < 20 })
            let compoundPlan = try context.explain(compound)
            #expect(usesAnIndex(compoundPlan), "\(compoundPlan)")
            #expect(try context.fetch(compound).count == 10)

            var page = FetchRequest<IndexedProfile>(sortBy: [SortDescriptor(\.rank)])
            page.fetchLimit = 20
            let explanation = try context.explain(page)
            #expect(explanation.windowInSQL && explanation.sortInSQL)
            #expect(!explanation.queryPlan.contains { $0.contains("TEMP B-TREE") }, "\(explanation)")
            #expect(try context.fetch(page).map(\.rank) == Array(0..<20))
        }
    }
}
