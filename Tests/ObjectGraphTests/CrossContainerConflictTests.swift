import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

@Suite("Conflicts across containers are the same as across siblings, on SQLite and PostgreSQL")
struct CrossContainerConflictTests {
    /// Where the two contexts of the scenario live.
    enum Placement: String, CaseIterable {
        /// Background contexts of two containers on one store, each merging the other's saves
        /// when its change feed reads them.
        case twoContainers
        /// Sibling background contexts of one container.
        case siblings
    }

    /// Two contexts of `placement` on `location`, and a way to let each merge what the other
    /// saved.
    static func contexts(_ placement: Placement, location: StoreLocation) throws -> (a: ManagedObjectContext, b: ManagedObjectContext, settle: () -> Void, keep: [PersistentContainer]) {
        let first = try historyContainer(location.kind())
        let second = placement == .twoContainers ? try historyContainer(location.kind()) : first
        let a = first.newBackgroundContext(name: "A"), b = second.newBackgroundContext(name: "B")
        let settle = {
            for container in [first, second] { container.coordinator.feed?.checkNow() }
            for _ in 0..<2 { for context in [a, b] { context.flush() } }
        }
        return (a, b, settle, [first, second])
    }

    @Test(
        "a context's snapshot is what it last read or wrote: after a real conflict and an object-wins save, another's save of another property is no conflict",
        arguments: StoreFlavor.persistent, Placement.allCases)
    func noFalseConflict(_ flavor: StoreFlavor, _ placement: Placement) throws {
        do {
            let location = try StoreLocation(flavor)
            let (contextA, contextB, settle, containers) = try Self.contexts(placement, location: location)
            let boardA = try contextA.performAndWait {
                let board = Board(context: contextA)
                board.title = "start"
                try contextA.save()
                return board
            }
            settle()
            let boardB = try contextB.performAndWait { try #require(try contextB.fetch(FetchRequest<Board>()).first) }
            // Both change the title before either hears of the other's change.
            contextB.performAndWait { boardB.title = "B1" }
            try contextA.performAndWait {
                boardA.title = "A1"
                try contextA.save()
            }
            settle()
            contextB.performAndWait {
                _ = #expect {
                    try contextB.save()
                } throws: { error in
                    guard case .mergeConflict(let conflicts) = error as? ObjectGraphError else { return false }
                    return conflicts.map(\.keys) == [["title"]]
                }
            }
            try contextB.performAndWait {
                contextB.mergePolicy = .objectWins
                try contextB.save()
            }
            settle()
            try contextA.performAndWait {
                boardA.priority = 1
                try contextA.save()
            }
            settle()
            // Nobody but B wrote the title since B's own last save: no conflict.
            try contextB.performAndWait {
                contextB.mergePolicy = .error
                boardB.title = "B2"
                try contextB.save()
            }
            let stored = try location.withViewContext(model: HistoryModel.model) { context in
                try context.fetch(FetchRequest<Board>()).map { "\($0.title) \($0.priority)" }
            }
            #expect(stored == ["B2 1"])
            withExtendedLifetime(containers) {}
        }
    }

    @Test("the same scenario when merges land whenever they land: no false conflict, and the last save wins", arguments: StoreFlavor.persistent, Placement.allCases)
    func noFalseConflictWithoutWaiting(_ flavor: StoreFlavor, _ placement: Placement) throws {
        do {
            let location = try StoreLocation(flavor)
            let (contextA, contextB, settle, containers) = try Self.contexts(placement, location: location)
            let boardA = try contextA.performAndWait {
                let board = Board(context: contextA)
                board.title = "start"
                try contextA.save()
                return board
            }
            settle()
            let boardB = try contextB.performAndWait { try #require(try contextB.fetch(FetchRequest<Board>()).first) }
            try contextA.performAndWait {
                boardA.title = "A1"
                try contextA.save()
            }
            try contextB.performAndWait {
                boardB.title = "B1"
                contextB.mergePolicy = .objectWins
                try contextB.save()
            }
            try contextA.performAndWait {
                boardA.priority = 1
                contextA.mergePolicy = .objectWins
                try contextA.save()
            }
            try contextB.performAndWait {
                contextB.mergePolicy = .error
                boardB.title = "B2"
                try contextB.save()
            }
            settle()
            let seen = try [contextA, contextB].map { context in
                try context.performAndWait { try #require(try context.fetch(FetchRequest<Board>()).first).title }
            }
            #expect(seen == ["B2", "B2"])
            withExtendedLifetime(containers) {}
        }
    }
}
