import Foundation
@testable import ObjectGraph
import Testing

/// The same entity as three model versions: no indexes (as every file written before indexes
/// existed), a unique handle, and an index on team.
private protocol MemberVersion: ManagedObject {
    var handle: String { get set }
}

private enum Unindexed {
    final class Member: ManagedObject, MemberVersion {
        @Attribute var handle: String = ""
        @Attribute var team: String = ""
    }
}

private enum UniqueHandle {
    final class Member: ManagedObject, MemberVersion {
        @Attribute(.unique) var handle: String = ""
        @Attribute var team: String = ""
    }
}

private enum IndexedTeam {
    final class Member: ManagedObject, MemberVersion {
        @Attribute var handle: String = ""
        @Attribute(.indexed) var team: String = ""
    }
}

@Suite("SQLite store: declared indexes exist, are used, and follow the model")
struct SQLiteIndexTests {
    static let unindexed = try! ObjectModel(entities: [Unindexed.Member.self])
    static let uniqueHandle = try! ObjectModel(entities: [UniqueHandle.Member.self])
    /// Version 2: it removes the uniqueness constraint the previous models declare, which only a
    /// higher version may do.
    static let indexedTeam = try! ObjectModel(version: 2, entities: [IndexedTeam.Member.self])

    func store(_ container: PersistentContainer) -> SQLiteStore {
        container.coordinator.store as! SQLiteStore
    }

    private func save<Member: MemberVersion>(_ type: Member.Type, handles: [String], at url: URL, model: ObjectModel) throws {
        try SQLiteFixture.withViewContext(at: url, model: model) { context in
            for handle in handles {
                let member = Member()
                member.handle = handle
                context.insert(member)
            }
            try context.save()
        }
    }

    private func handles<Member: MemberVersion>(of type: Member.Type, at url: URL, model: ObjectModel) throws -> [String] {
        try SQLiteFixture.withViewContext(at: url, model: model) { context in
            try context.fetch(FetchRequest<Member>()).map(\.handle).sorted()
        }
    }

    @Test("lookups by an indexed attribute, a compound index and a sort use the declared indexes")
    func plans() throws {
        let container = try StoreFlavor.sqlite.makeContainer(model: UniquenessModel.model)
        let store = store(container)
        let collated = SQLiteCollation.name
        let cases: [(sql: String, index: String)] = [
            ("SELECT pk FROM \"Profile\" WHERE \"username\" COLLATE \(collated) = ?1", "Profile.unique(username)"),
            ("SELECT pk FROM \"Profile\" WHERE \"rank\" = ?1", "Profile.index(rank)"),
            ("SELECT pk FROM \"Profile\" WHERE \"city\" COLLATE \(collated) = ?1 AND \"rank\" < ?2", "Profile.index(city,rank)"),
            ("SELECT pk FROM \"Profile\" ORDER BY \"rank\" LIMIT 20", "Profile.index(rank)"),
            ("SELECT pk FROM \"Item\" WHERE \"serial\" = ?1", "Gadget.index(serial)"),
        ]
        for (sql, index) in cases {
            let plan = try store.queryPlan(sql)
            #expect(plan.contains { $0.contains("INDEX \"\(index)\"") || $0.contains("INDEX \(index)") }, "\(sql): \(plan)")
        }
        // Every lookup a save makes to name a collision uses its constraint's index, partial and
        // expression indexes included.
        for entity in UniquenessModel.model.entities {
            for lookup in try store.mapping(for: entity).uniqueLookups {
                let plan = try store.queryPlan(lookup.select).joined(separator: "; ")
                #expect(plan.contains("USING INDEX") && !plan.contains("SCAN"), "\(lookup.select): \(plan)")
            }
        }
    }

    @Test("a file written by a model without indexes reopens with it, unchanged, and with a model that adds some")
    func oldFilesOpen() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("members.sqlite")
            try save(Unindexed.Member.self, handles: ["a", "b"], at: url, model: Self.unindexed)
            #expect(try handles(of: Unindexed.Member.self, at: url, model: Self.unindexed) == ["a", "b"])
            // Opening again with the same model has nothing to bring in line: not a byte changes.
            let before = try #require(SQLiteFixture.contents(of: url))
            _ = try handles(of: Unindexed.Member.self, at: url, model: Self.unindexed)
            #expect(SQLiteFixture.contents(of: url) == before)
            // A model that adds a uniqueness constraint gets its index.
            #expect(try handles(of: UniqueHandle.Member.self, at: url, model: Self.uniqueHandle) == ["a", "b"])
            let container = try SQLiteFixture.container(at: url, model: Self.uniqueHandle)
            let plan = try store(container).queryPlan("SELECT pk FROM \"Member\" WHERE \"handle\" COLLATE \(SQLiteCollation.name) = ?1")
            #expect(plan.joined().contains("Member.unique(handle)"))
        }
    }

    @Test("a uniqueness constraint added to the model applies to the file; removed by a higher version, it no longer does")
    func constraintFollowsTheModel() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("members.sqlite")
            try save(Unindexed.Member.self, handles: ["a"], at: url, model: Self.unindexed)
            #expect(throws: ObjectGraphError.self) {
                try save(UniqueHandle.Member.self, handles: ["a"], at: url, model: Self.uniqueHandle)
            }
            // The index on team replaces the constraint.
            try save(IndexedTeam.Member.self, handles: ["a"], at: url, model: Self.indexedTeam)
            let container = try SQLiteFixture.container(at: url, model: Self.indexedTeam)
            let plan = try store(container).queryPlan("SELECT pk FROM \"Member\" WHERE \"team\" COLLATE \(SQLiteCollation.name) = ?1")
            #expect(plan.joined().contains("Member.index(team)"))
            #expect(try handles(of: IndexedTeam.Member.self, at: url, model: Self.indexedTeam) == ["a", "a"])
        }
    }

    @Test("objects in the file that break a constraint the model adds make opening fail, naming it, with the file unchanged")
    func duplicatesInTheFile() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("members.sqlite")
            try save(Unindexed.Member.self, handles: ["a", "a"], at: url, model: Self.unindexed)
            let before = try #require(SQLiteFixture.contents(of: url))
            #expect {
                try SQLiteFixture.container(at: url, model: Self.uniqueHandle)
            } throws: { error in
                guard case let .migrationRefused(_, changes) = error as? ObjectGraphError, let change = changes.first else { return false }
                return change.entity == "Member" && change.property == "handle" && change.stored.contains("'a'")
            }
            #expect(SQLiteFixture.contents(of: url) == before)
            #expect(try handles(of: Unindexed.Member.self, at: url, model: Self.unindexed) == ["a", "a"])
        }
    }
}
