import Dispatch
import Foundation
import ObjectGraph
import Testing

@Suite("Persistent history")
struct PersistentHistoryTests {
    /// A container of `flavor` on the history model; history kept until deleted, so that the
    /// test sees every transaction.
    static func container(_ flavor: StoreFlavor, trimming: HistoryTrimming = .manual) throws -> PersistentContainer {
        var options = ChangeFeedOptions()
        options.trimming = trimming
        return try PersistentContainer(
            model: HistoryModel.model, store: flavor.makeStoreKind(), viewContextQueue: DispatchQueue(label: "test.history.view"), changeFeed: options)
    }

    @Test("each save records its token, author, time and objects, in the order they were saved", arguments: StoreFlavor.allCases)
    func savesAreRecorded(_ flavor: StoreFlavor) throws {
        let container = try Self.container(flavor)
        let view = container.viewContext
        let start = try container.history.currentToken()
        let before = Date()
        let (board, cards) = try view.performAndWait {
            let board = Board(context: view)
            board.title = "Inbox"
            let cards = (0..<3).map { index in
                let card = Card(context: view)
                card.title = "card \(index)"
                card.board = board
                return card
            }
            try view.save()
            return (board, cards)
        }
        let import_ = container.newBackgroundContext(name: "importer")
        try import_.performAndWait {
            import_.transactionAuthor = "import"
            let card = try #require(import_.object(with: cards[0].objectID!, as: Card.self))
            card.rank = 5
            import_.delete(try #require(import_.object(with: cards[1].objectID!)))
            try import_.save()
        }
        let transactions = try container.history.transactions(after: start)
        #expect(transactions.count == 2)
        let first = try #require(transactions.first), second = try #require(transactions.last)
        #expect(first.token > start && second.token > first.token)
        #expect(first.author == "view" && second.author == "import")
        #expect(first.timestamp >= before.addingTimeInterval(-1) && second.timestamp <= Date().addingTimeInterval(1))
        let inserted = Set(first.changes.filter { $0.kind == .insert }.compactMap(\.objectID))
        #expect(inserted == Set([board.objectID!] + cards.map { $0.objectID! }))
        let updates = second.changes.filter { $0.kind == .update }
        #expect(updates.contains { $0.objectID == cards[0].objectID && $0.changedProperties == ["rank"] })
        // The delete takes the card out of the board's cards: the board is updated too.
        #expect(updates.contains { $0.objectID == board.objectID && $0.changedProperties.contains("cards") })
        #expect(second.changes.filter { $0.kind == .delete }.map(\.objectID) == [cards[1].objectID])
        #expect(try container.history.currentToken() == second.token)
    }

    @Test("batch updates and deletes are recorded like saves", arguments: StoreFlavor.allCases)
    func batchesAreRecorded(_ flavor: StoreFlavor) throws {
        let container = try Self.container(flavor)
        let view = container.viewContext
        try view.performAndWait {
            for rank in 0..<5 {
                let card = Card(context: view)
                card.rank = rank
            }
            try view.save()
        }
        let token = try container.history.currentToken()
        let ids = try view.performAndWait {
            view.transactionAuthor = "cleanup"
            let updated = try view.execute(BatchUpdate<Card>(where: #Predicate { $0.rank < 2 }, set: \.title, to: "low"))
            let deleted = try view.delete(Card.self, where: #Predicate { $0.rank >= 3 })
            return (updated.objectIDs, deleted.objectIDs)
        }
        let transactions = try container.history.transactions(after: token)
        #expect(transactions.map(\.author) == ["cleanup", "cleanup"])
        #expect(Set(transactions[0].changes.map { "\($0.kind) \($0.changedProperties.sorted())" }) == ["update [\"title\"]"])
        #expect(Set(transactions[0].changes.compactMap(\.objectID)) == Set(ids.0))
        #expect(Set(transactions[1].changes.filter { $0.kind == .delete }.compactMap(\.objectID)) == Set(ids.1))
    }

    @Test("transactions filter by author and by entity", arguments: StoreFlavor.allCases)
    func filters(_ flavor: StoreFlavor) throws {
        let container = try Self.container(flavor)
        let view = container.viewContext
        let start = try container.history.currentToken()
        try view.performAndWait {
            view.transactionAuthor = "a"
            Board(context: view).title = "one"
            try view.save()
            view.transactionAuthor = "b"
            Card(context: view).title = "two"
            try view.save()
            view.transactionAuthor = nil
            Board(context: view).title = "three"
            Card(context: view).title = "three"
            try view.save()
        }
        let history = container.history
        #expect(try history.transactions(after: start, authors: ["b"]).map(\.author) == ["b"])
        #expect(try history.transactions(after: start, authors: ["view", "a"]).map(\.author) == ["a", "view"])
        let cards = try history.transactions(after: start, entities: [Card.self])
        #expect(cards.map(\.author) == ["b", "view"])
        #expect(cards.allSatisfy { $0.changes.allSatisfy { $0.entityName == "Card" } })
        #expect(try history.transactions(after: start, authors: ["a"], entityNames: ["Card"]).isEmpty)
        #expect(try history.transactions().count == 3)
    }

    @Test("tokens are Codable: a token read back from JSON goes on where it stopped", arguments: StoreFlavor.allCases)
    func tokensAreCodable(_ flavor: StoreFlavor) throws {
        let container = try Self.container(flavor)
        let view = container.viewContext
        try view.performAndWait {
            Board(context: view).title = "before"
            try view.save()
        }
        let token = try container.history.currentToken()
        let decoded = try JSONDecoder().decode(HistoryToken.self, from: try JSONEncoder().encode(token))
        #expect(decoded == token)
        try view.performAndWait {
            Board(context: view).title = "after"
            try view.save()
        }
        #expect(try container.history.transactions(after: decoded).count == 1)
    }

    @Test("after history is deleted before a token, an older token is refused with a typed error, and the newer ones still read", arguments: StoreFlavor.allCases)
    func expiredToken(_ flavor: StoreFlavor) throws {
        let container = try Self.container(flavor)
        let view = container.viewContext
        var tokens: [HistoryToken] = [try container.history.currentToken()]
        for index in 0..<4 {
            try view.performAndWait {
                Board(context: view).title = "b\(index)"
                try view.save()
            }
            tokens.append(try container.history.currentToken())
        }
        try container.history.deleteHistory(before: tokens[2])
        // tokens[n] is the token of the n-th save: those before the second one go.
        #expect(try container.history.transactions().map(\.token) == [tokens[2], tokens[3], tokens[4]])
        #expect(try container.history.transactions(after: tokens[2]).count == 2)
        #expect(try container.history.transactions(after: tokens[1]).count == 3)
        #expect {
            try container.history.transactions(after: tokens[0])
        } throws: { error in
            guard case let .historyTokenExpired(_, token, oldest) = error as? ObjectGraphError else { return false }
            return token == tokens[0].value && oldest == tokens[1].value
        }
    }

    @Test("a token of another store is refused", arguments: StoreFlavor.allCases)
    func tokenOfAnotherStore(_ flavor: StoreFlavor) throws {
        let one = try Self.container(flavor), other = try Self.container(flavor)
        for container in [one, other] {
            try container.viewContext.performAndWait {
                Board(context: container.viewContext).title = "history begins"
                try container.viewContext.save()
            }
        }
        let token = try one.history.currentToken()
        #expect {
            try other.history.transactions(after: token)
        } throws: { error in
            if case .historyTokenMismatch = error as? ObjectGraphError { return true }
            return false
        }
    }

    @Test("automatic trimming keeps what a named reader has not read, and drops it once read", arguments: StoreFlavor.allCases)
    func trimmingFollowsNamedReaders(_ flavor: StoreFlavor) throws {
        let container = try Self.container(flavor, trimming: .automatic)
        let view = container.viewContext
        let start = try container.history.currentToken()
        try container.history.recordProgress(start, reader: "sync")
        for index in 0..<300 {
            try view.performAndWait {
                Board(context: view).title = "b\(index)"
                try view.save()
            }
        }
        // The container itself read everything; "sync" nothing: everything stays.
        try container.history.recordProgress(start, reader: "sync")
        #expect(try container.history.transactions(after: start).count == 300)
        let middle = try #require(try container.history.transactions(after: start).dropFirst(149).first?.token)
        try container.history.recordProgress(middle, reader: "sync")
        #expect(try container.history.transactions().count == 150)
        #expect(try container.history.readers().contains { $0.name == "sync" && $0.token == middle && !$0.isContainer })
        #expect(throws: ObjectGraphError.self) { try container.history.transactions(after: start) }
        try container.history.removeReader("sync")
        #expect(try !container.history.readers().contains { $0.name == "sync" })
    }
}
