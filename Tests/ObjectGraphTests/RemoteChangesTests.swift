import Dispatch
import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Testing

@Suite("Live results follow other containers on the same store")
struct RemoteChangesTests {
    /// Two containers on one new store, and live results in the second.
    struct Pair {
        /// The store: a SQLite file, or a PostgreSQL schema.
        let location: StoreLocation
        let writer: PersistentContainer
        let reader: PersistentContainer
        let live: LiveCards

        /// A pair on a new SQLite file in `directory`.
        init(directory: URL, options: ChangeFeedOptions = ChangeFeedOptions()) throws {
            try self.init(StoreLocation(place: .file(directory.appendingPathComponent("pair.sqlite"))), options: options)
        }

        /// A pair on a new store of `flavor` (a file or a PostgreSQL schema).
        init(_ flavor: StoreFlavor, options: ChangeFeedOptions = ChangeFeedOptions()) throws {
            try self.init(StoreLocation(flavor), options: options)
        }

        private init(_ location: StoreLocation, options: ChangeFeedOptions) throws {
            self.location = location
            writer = try historyContainer(location.kind(), options: options)
            reader = try historyContainer(location.kind(), options: options)
            live = try LiveCards(container: reader)
        }

        /// Saves `edit` through a background context of the writer.
        func write(_ edit: (ManagedObjectContext) throws -> Void) throws {
            let context = writer.newBackgroundContext(name: "writer")
            try context.performAndWait {
                try edit(context)
                try context.save()
            }
        }

        /// Waits until both containers have recorded their progress (no write of theirs is due
        /// for a while), then has each look at the file: a write that bypasses the store right
        /// after one of the store's own, before anyone looked, would not be told apart (see
        /// FeedPosition). False if the progress was not recorded in time.
        func readyForBypassingWrites() -> Bool {
            let registered = [writer, reader].compactMap { $0.coordinator.feed?.readerName }
            let recorded = eventually { (try? reader.history.readers().filter { registered.contains($0.name) }.count) == 2 }
            for container in [writer, reader] { container.coordinator.feed?.checkNow() }
            return recorded
        }

        /// Waits until the reader's live results show what the file holds.
        func settled() throws -> Bool {
            try eventually { try live.agree(with: reader) }
        }
    }

    static func card(_ title: String, in context: ManagedObjectContext) throws -> Card {
        try #require(try context.fetch(FetchRequest<Card>(predicate: #Predicate { $0.title == title })).first)
    }

    @Test("inserts, updates, deletes, a related object's change and an object that starts to match all reach the other container's live results",
          arguments: StoreFlavor.persistent)
    func followsEveryKindOfChange(flavor: StoreFlavor) throws {
        do {
            let pair = try Pair(flavor)
            #expect(try pair.settled())
            try pair.write { context in
                let board = Board(context: context)
                board.title = "todo"
                for (title, rank) in [("a", 1), ("b", 2), ("watched", 3), ("hidden", -1)] {
                    let card = Card(context: context)
                    card.title = title
                    card.rank = rank
                    card.board = board
                }
            }
            #expect(try pair.settled(), "inserts")
            try pair.write { context in try Self.card("a", in: context).rank = 9 }
            #expect(try pair.settled(), "an update that moves a card")
            try pair.write { context in try Self.card("hidden", in: context).rank = 4 }
            #expect(try pair.settled(), "a card saved before, never fetched, now matching")
            try pair.write { context in
                let board = try #require(try context.fetch(FetchRequest<Board>()).first)
                board.title = "done"
            }
            #expect(try pair.settled(), "a change of the board every card shows")
            try pair.write { context in context.delete(try Self.card("watched", in: context)) }
            #expect(try pair.settled(), "a delete")
            #expect(pair.live.watched.values.last == .some(nil), "the object publisher saw the delete")
            try pair.write { context in try context.execute(BatchUpdate<Card>(where: #Predicate { $0.rank > 3 }, set: \.rank, to: 3)) }
            #expect(try pair.settled(), "a batch update")
            try pair.write { context in try context.delete(Card.self, where: #Predicate { $0.title == "b" }) }
            #expect(try pair.settled(), "a batch delete")
        }
    }

    @Test("a changesPublisher without demand coalesces every remote save into one difference", arguments: StoreFlavor.persistent)
    func coalescesUntilDemand(flavor: StoreFlavor) throws {
        do {
            let store = flavor.makeStoreKind()
            let writer = try historyContainer(store), reader = try historyContainer(store)
            let view = reader.viewContext
            try view.performAndWait {
                Card(context: view).rank = -1
                try view.save()
            }
            let request = FetchRequest<Card>(sortBy: [SortDescriptor(\.rank)])
            let subscriber = TestSubscriber<CollectionDifference<Card>, ObjectGraphError>()
            let eager = TestSubscriber<CollectionDifference<Card>, ObjectGraphError>()
            view.changesPublisher(for: request).subscribe(subscriber)
            view.changesPublisher(for: request).subscribe(eager)
            view.performAndWait {
                subscriber.request(.max(1))
                eager.request(.unlimited)
            }
            view.flush()
            #expect(subscriber.values.count == 1)  // the first state
            let context = writer.newBackgroundContext()
            for rank in 0..<20 {
                try context.performAndWait {
                    Card(context: context).rank = rank
                    try context.save()
                }
            }
            // Every save merged into the reader (the eager subscriber saw them all) before
            // demand comes.
            #expect(eventually { view.performAndWait { eager.values.reduce(0) { $0 + $1.insertions.count } } == 21 })
            #expect(subscriber.values.count == 1)
            view.performAndWait { subscriber.request(.max(1)) }
            #expect(eventually { subscriber.values.count == 2 })
            #expect(subscriber.values.last?.insertions.count == 20)
        }
    }

    @Test("a write to the file that bypassed ObjectGraph is noticed: live results fetch again and deliver one difference")
    func writesBypassingTheStore() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let pair = try Pair(directory: directory)
            try pair.write { context in
                for (title, rank) in [("a", 1), ("b", 2), ("c", 3)] {
                    let card = Card(context: context)
                    card.title = title
                    card.rank = rank
                }
            }
            #expect(try pair.settled())
            #expect(pair.readyForBypassingWrites())
            let deliveriesBefore = pair.live.deliveries
            // What the sqlite3 shell would do: no history, no version bump.
            guard case let .file(url) = pair.location.place else { Issue.record("a SQLite pair"); return }
            let raw = try RawDatabase(path: url.path)
            try raw.execute("""
                BEGIN;
                UPDATE "Card" SET rank = 10 WHERE title = 'a';
                DELETE FROM "Card" WHERE title = 'b';
                INSERT INTO "Card" (pk, entity, version, title, rank, writer) VALUES (1000, 'Card', 1, 'shell', 0, '');
                COMMIT;
                """)
            #expect(try pair.settled())
            #expect(pair.live.deliveries == deliveriesBefore + 1, "one difference")
            #expect(pair.live.shown().controller.map { $0.prefix(while: { $0 != "#" }) } == ["shell", "c", "a"])
        }
    }

    @Test("a write that bypassed ObjectGraph reaches observers routed by value too: the single object it inserts is found")
    func bypassingWriteReachesRoutedObservers() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let pair = try Pair(directory: directory)
            try pair.write { context in Card(context: context).title = "a" }
            #expect(try pair.settled())
            #expect(pair.readyForBypassingWrites())
            // The "watched" observer is found by a lookup on the title; no object of the
            // context has that title, and the shell's insert names nothing to the history.
            guard case let .file(url) = pair.location.place else { Issue.record("a SQLite pair"); return }
            let raw = try RawDatabase(path: url.path)
            try raw.execute("""
                INSERT INTO "Card" (pk, entity, version, title, rank, writer) VALUES (1000, 'Card', 1, 'watched', 4, '');
                """)
            #expect(try pair.settled())
            #expect(pair.live.shown().watched == "watched#4@-")
        }
    }

    @Test("a container that records no history: another container's live results follow it by fetching again, and its own never start over")
    func containerWithoutHistory() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("no-history.sqlite")
            var off = ChangeFeedOptions()
            off.recordsHistory = false
            let writer = try historyContainer(at: url, options: off), reader = try historyContainer(at: url)
            let theirs = try LiveCards(container: reader)
            let resets = TestSubscriber<ObjectsDidChange, Never>()
            writer.viewContext.objectsDidChange.filter(\.requiresRefetch).subscribe(resets)
            resets.request(.unlimited)
            let context = writer.newBackgroundContext()
            for rank in 0..<3 {
                try context.performAndWait {
                    Card(context: context).rank = rank
                    try context.save()
                }
                #expect(try eventually { try theirs.agree(with: reader) }, "after save \(rank)")
            }
            writer.coordinator.feed?.checkNow()
            Thread.sleep(forTimeInterval: 0.6)
            writer.viewContext.flush()
            #expect(resets.values.isEmpty)
            #expect(try writer.history.transactions().isEmpty)
        }
    }

    @Test("another container closing (its checkpoint moves the file) costs no refetch here")
    func closingElsewhereIsNoChange() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let pair = try Pair(directory: directory)
            try pair.write { context in Card(context: context).title = "a" }
            #expect(try pair.settled())
            let deliveries = pair.live.deliveries
            pair.writer.close()
            pair.reader.coordinator.feed?.checkNow()
            Thread.sleep(forTimeInterval: 0.7)  // past a look of the safety net
            pair.reader.viewContext.flush()
            #expect(pair.live.deliveries == deliveries)
        }
    }

    @Test("when history this container had not read was trimmed, its live results start over with one full difference",
          arguments: StoreFlavor.persistent)
    func expiredTokenResets(flavor: StoreFlavor) throws {
        do {
            var quiet = ChangeFeedOptions()
            quiet.wakesOtherWriters = false  // the reader hears nothing until it looks
            quiet.safetyNetInterval = .seconds(3600)
            let store = flavor.makeStoreKind()
            let writer = try historyContainer(store, options: quiet)
            let reader = try historyContainer(store, options: quiet)
            let live = try LiveCards(container: reader)
            // A PostgreSQL listener reads what it missed once it connects: let it connect, and
            // let the look that follows pass, so that the reader looks only when told to. (A look
            // between the saves below would be right, and would spoil the scenario.)
            #expect(try listening(2, on: store))
            Thread.sleep(forTimeInterval: 0.3)
            reader.coordinator.feed?.checkNow()
            let context = writer.newBackgroundContext()
            try context.performAndWait {
                for rank in 0..<3 { Card(context: context).rank = rank }
                try context.save()
            }
            // The writer trims what its own reader read, whatever the other container's
            // progress: as if that container had stayed silent past the timeout.
            try writer.history.deleteHistory(before: try writer.history.currentToken())
            try context.performAndWait {
                Card(context: context).rank = 7
                try context.save()
            }
            let deliveriesBefore = live.deliveries
            reader.coordinator.feed?.checkNow()
            #expect(try eventually { try live.agree(with: reader) })
            #expect(live.deliveries == deliveriesBefore + 1)
            #expect(live.shown().controller.count == 4)
        }
    }

    @Test("the remoteChanges publisher posts the newest token after another container's save, never after this container's own",
          arguments: StoreFlavor.persistent)
    func remoteChangesPublisher(flavor: StoreFlavor) throws {
        do {
            let store = flavor.makeStoreKind()
            let writer = try historyContainer(store), reader = try historyContainer(store)
            let tokens = TestSubscriber<HistoryToken, Never>()
            reader.remoteChanges.subscribe(tokens)
            tokens.request(.unlimited)
            try reader.viewContext.performAndWait {
                Board(context: reader.viewContext).title = "own"
                try reader.viewContext.save()
            }
            let own = try reader.history.currentToken()
            let context = writer.newBackgroundContext()
            try context.performAndWait {
                Board(context: context).title = "theirs"
                try context.save()
            }
            let token = try writer.history.currentToken()
            #expect(eventually { tokens.values.last == token })
            #expect(tokens.values.allSatisfy { $0 > own })
        }
    }

    @Test("a container whose view context queue was not chosen delivers in a process that never runs the main queue")
    func defaultViewQueueWorksWithoutMainRunLoop() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("default-queue.sqlite")
            let container = try PersistentContainer(model: HistoryModel.model, storeURL: url)
            #expect(container.viewContext.queue !== DispatchQueue.main)
            let subscriber = TestSubscriber<CollectionDifference<Card>, ObjectGraphError>()
            container.viewContext.changesPublisher(for: FetchRequest<Card>(sortBy: [SortDescriptor(\.rank)])).subscribe(subscriber)
            subscriber.request(.unlimited)
            let background = container.newBackgroundContext()
            try background.performAndWait {
                Card(context: background).rank = 1
                try background.save()
            }
            #expect(eventually { subscriber.values.reduce(0) { $0 + $1.insertions.count } == 1 })
        }
    }
}
