import Foundation
import ObjectGraph
import Testing

@Suite("Every store: conflicts and merge policies behave the same in memory, on SQLite and on PostgreSQL")
struct MergePolicyTests {
    /// A saved content, read by a view context that does not merge, then changed and saved by
    /// a background context with `theirs`. Returns the view's copy of the content.
    func stage(
        _ container: PersistentContainer, theirs: @escaping (Content) -> Void
    ) throws -> (view: ManagedObjectContext, content: Content) {
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let id = try background.performAndWait {
            let content = Content(context: background)
            content.name = "original"
            let tag = Tag(context: background)
            tag.title = "first"
            let other = Tag(context: background)
            other.title = "second"
            try background.save()
            return content.objectID!
        }
        let content = try view.performAndWait {
            view.automaticallyMergesChangesFromSiblings = false
            let content = try #require(view.object(with: id, as: Content.self))
            _ = content.tags  // read now, as a UI would, so that the later change is relative to it
            return content
        }
        try background.performAndWait {
            theirs(try #require(background.object(with: id, as: Content.self)))
            try background.save()
        }
        return (view, content)
    }

    /// The objects and keys of a merge conflict error, one dictionary per conflict.
    func conflicts(in error: ObjectGraphError) -> [[String: [String]]] {
        guard case .mergeConflict(let conflicts) = error else { return [["not a merge conflict": [error.description]]] }
        return conflicts.map { [$0.objectID.description: $0.keys] }
    }

    /// The content as a fresh context reads it from the store.
    func stored(_ container: PersistentContainer) throws -> (name: String, rank: Int, tags: Set<String>)? {
        let reader = container.newBackgroundContext()
        return try reader.performAndWait {
            try reader.fetch(FetchRequest<Content>()).first.map { ($0.name, $0.rank, Set($0.tags.map(\.title))) }
        }
    }

    @Test("under .error a change to the same key is a conflict naming it, and nothing of the save is written", arguments: StoreFlavor.allCases)
    func errorPolicy(_ flavor: StoreFlavor) throws {
        do {
            let container = try flavor.makeContainer()
            let (view, content) = try stage(container) { $0.name = "theirs" }
            let error = try view.performAndWait {
                content.name = "mine"
                content.rank = 3
                Owner(context: view).name = "inserted in the failing save"
                return try #require(throws: ObjectGraphError.self) { try view.save() }
            }
            #expect(conflicts(in: error) == [[content.objectID!.description: ["name"]]])
            #expect(try stored(container)?.name == "theirs")
            #expect(try stored(container)?.rank == 0)
            let reader = container.newBackgroundContext()
            #expect(try reader.performAndWait { try reader.count(for: FetchRequest<Owner>()) } == 0)
        }
    }

    @Test("changes to different keys do not conflict, and the saving context takes in the other", arguments: StoreFlavor.allCases)
    func differentKeys(_ flavor: StoreFlavor) throws {
        do {
            let container = try flavor.makeContainer()
            let (view, content) = try stage(container) { $0.rank = 7 }
            try view.performAndWait {
                content.name = "mine"
                try view.save()
                #expect(content.rank == 7)
            }
            #expect(try stored(container)?.name == "mine")
            #expect(try stored(container)?.rank == 7)
        }
    }

    @Test("under .storeWins the store keeps its value for the conflicting key and takes the others", arguments: StoreFlavor.allCases)
    func storeWins(_ flavor: StoreFlavor) throws {
        do {
            let container = try flavor.makeContainer()
            let (view, content) = try stage(container) { $0.name = "theirs" }
            try view.performAndWait {
                view.mergePolicy = .storeWins
                content.name = "mine"
                content.rank = 5
                try view.save()
                #expect(content.name == "theirs")
            }
            #expect(try stored(container)?.name == "theirs")
            #expect(try stored(container)?.rank == 5)
        }
    }

    @Test("under .objectWins the saving context's value is written", arguments: StoreFlavor.allCases)
    func objectWins(_ flavor: StoreFlavor) throws {
        do {
            let container = try flavor.makeContainer()
            let (view, content) = try stage(container) { $0.name = "theirs" }
            try view.performAndWait {
                view.mergePolicy = .objectWins
                content.name = "mine"
                try view.save()
            }
            #expect(try stored(container)?.name == "mine")
        }
    }

    @Test("to-many changes merge as additions and removals and never conflict", arguments: StoreFlavor.allCases)
    func toManyMerge(_ flavor: StoreFlavor) throws {
        do {
            let container = try flavor.makeContainer()
            let (view, content) = try stage(container) { theirs in
                let first = try! theirs.managedObjectContext!.fetch(FetchRequest<Tag>(predicate: #Predicate { $0.title == "first" }))
                theirs.tags = Set(first)
            }
            try view.performAndWait {
                let second = try view.fetch(FetchRequest<Tag>(predicate: #Predicate { $0.title == "second" }))
                content.tags = Set(second)
                try view.save()
                #expect(Set(content.tags.map(\.title)) == ["first", "second"])
            }
            #expect(try stored(container)?.tags == ["first", "second"])
            let reader = container.newBackgroundContext()
            let tagContents = try reader.performAndWait { try reader.fetch(FetchRequest<Tag>()).map(\.contents.count) }
            #expect(tagContents == [1, 1])
        }
    }

    @Test("an update of an object deleted elsewhere is a conflict under .error and skipped otherwise", arguments: StoreFlavor.allCases)
    func deletedElsewhere(_ flavor: StoreFlavor) throws {
        do {
            let container = try flavor.makeContainer()
            let (view, content) = try stage(container) { $0.managedObjectContext!.delete($0) }
            let error = try view.performAndWait {
                content.name = "mine"
                return try #require(throws: ObjectGraphError.self) { try view.save() }
            }
            #expect(conflicts(in: error) == [[content.objectID!.description: ["(deleted elsewhere)"]]])
            try view.performAndWait {
                view.mergePolicy = .storeWins
                try view.save()
            }
            #expect(try stored(container) == nil)
        }
    }
}
