import Dispatch
import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// Waits until `condition` holds, checking every millisecond, for at most `timeout`; returns
/// whether it held. For changes that arrive from another container or process.
func eventually(timeout: TimeInterval = 20, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.001)
    }
    return try condition()
}

/// A container on the history model at `url`, its view context on a queue of its own.
func historyContainer(at url: URL, options: ChangeFeedOptions = ChangeFeedOptions()) throws -> PersistentContainer {
    try historyContainer(.sqlite(url), options: options)
}

/// A container on the history model in `store` (a file, or a PostgreSQL schema that several
/// containers open), its view context on a queue of its own.
func historyContainer(_ store: StoreKind, options: ChangeFeedOptions = ChangeFeedOptions()) throws -> PersistentContainer {
    try PersistentContainer(model: HistoryModel.model, store: store, viewContextQueue: DispatchQueue(label: "test.remote.view"), changeFeed: options)
}

extension ChangeFeedOptions {
    /// The defaults, with history trimmed only when asked: for tests that read their own
    /// container's history, which automatic trimming deletes once the container has read it.
    static var keepingHistory: ChangeFeedOptions {
        var options = ChangeFeedOptions()
        options.trimming = .manual
        return options
    }
}

/// What a view model shows of the cards, through each kind of live result of one view
/// context: a fetched-results controller, a `changesPublisher` (its differences applied to an
/// array) and an `objectPublisher` of the card titled "watched". Each is compared with a fresh
/// fetch.
final class LiveCards: @unchecked Sendable {  // used on the view context's queue, read after `flush`
    let view: ManagedObjectContext
    let request: FetchRequest<Card>
    let controller: FetchedResultsController<Card>
    let changes = TestSubscriber<CollectionDifference<Card>, ObjectGraphError>()
    let watched = TestSubscriber<Card?, ObjectGraphError>()
    /// The `changesPublisher`'s differences applied, one after the other.
    private(set) var applied: [Card] = []
    /// How many differences the `changesPublisher` delivered, and whether one failed to apply.
    private(set) var deliveries = 0
    private(set) var brokenDifference = false
    private var cancellables: [AnyCancellable] = []

    /// Cards whose rank is at least `minimumRank`, by rank then title, refreshed through the
    /// board's title.
    init(container: PersistentContainer, minimumRank: Int = 0) throws {
        view = container.viewContext
        var request = FetchRequest<Card>(predicate: #Predicate { $0.rank >= minimumRank }, sortBy: [SortDescriptor(\.rank), SortDescriptor(\.title)])
        request.relationshipKeyPathsForRefreshing = ["board.title"]
        self.request = request
        let view = view
        controller = try view.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: request, context: view)
            try controller.performFetch()
            return controller
        }
        view.changesPublisher(for: request).subscribe(changes)
        view.objectPublisher(matching: #Predicate<Card> { $0.title == "watched" }).subscribe(watched)
        view.performAndWait {
            changes.request(.unlimited)
            watched.request(.unlimited)
        }
        view.flush()
        catchUp()
    }

    private var absorbed = 0

    private func absorb(_ difference: CollectionDifference<Card>) {
        deliveries += 1
        if let next = applied.applying(difference) { applied = next } else { brokenDifference = true }
    }

    /// Takes in the differences delivered since the last call (on the view queue).
    func catchUp() {
        view.performAndWait {
            let values = changes.values
            for difference in values.dropFirst(absorbed) { absorb(difference) }
            absorbed = values.count
        }
    }

    /// The titles and ranks of the cards a fresh fetch of the store returns, in order.
    func freshFetch(in container: PersistentContainer) throws -> [String] {
        let fresh = container.newBackgroundContext(name: "fresh")
        return try fresh.performAndWait { try fresh.totallyOrderedFetch(request).map(Self.describe) }
    }

    static func describe(_ card: Card) -> String { "\(card.title)#\(card.rank)@\(card.board?.title ?? "-")" }

    /// What each live result shows, described the same way.
    func shown() -> (controller: [String], publisher: [String], watched: String?) {
        catchUp()
        return view.performAndWait {
            (controller.fetchedObjects.map(Self.describe), applied.map(Self.describe), (watched.values.last ?? nil).map(Self.describe))
        }
    }

    /// Whether every live result shows what a fresh fetch of `container`'s store returns.
    func agree(with container: PersistentContainer) throws -> Bool {
        let expected = try freshFetch(in: container)
        let fresh = container.newBackgroundContext(name: "fresh")
        let watchedCard = try fresh.performAndWait {
            try fresh.fetch(FetchRequest<Card>(predicate: #Predicate { $0.title == "watched" })).first.map(Self.describe)
        }
        let now = shown()
        return now.controller == expected && now.publisher == expected && now.watched == watchedCard && !brokenDifference
    }
}

/// What a reconnect or restart test follows: `reader`'s live cards and remote tokens (asked for
/// without limit), and a background context of `writer` that has saved cards 1–3, which the
/// reader shows (an issue is recorded if it does not).
func followFirstCards(
    reader: PersistentContainer, writer: PersistentContainer, sourceLocation: SourceLocation = #_sourceLocation
) throws -> (live: LiveCards, tokens: TestSubscriber<HistoryToken, Never>, context: ManagedObjectContext) {
    let live = try LiveCards(container: reader)
    let tokens = TestSubscriber<HistoryToken, Never>()
    reader.remoteChanges.subscribe(tokens)
    tokens.request(.unlimited)
    let context = writer.newBackgroundContext()
    try saveCards(1...3, in: context)
    #expect(eventually { (try? live.agree(with: writer)) == true }, sourceLocation: sourceLocation)
    return (live, tokens, context)
}

/// Saves one card per index (titled `card-<index>`, ranked by it), one save each, in `context`.
func saveCards(_ indexes: ClosedRange<Int>, in context: ManagedObjectContext) throws {
    for index in indexes {
        try context.performAndWait {
            let card = Card(context: context)
            card.title = "card-\(index)"
            card.rank = index
            try context.save()
        }
    }
}

extension LiveCards {
    /// Checks that the reader took in every save once, in commit order: the tokens it merged
    /// (`tokens`, its `remoteChanges`) only rise, and the titles its `changesPublisher` inserted
    /// are `titles`, in that order.
    func expectEverySaveOnceInOrder(tokens: TestSubscriber<HistoryToken, Never>, titles: [String]) {
        let values = tokens.values
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 }, "\(values)")
        let inserted = view.performAndWait {
            changes.values.flatMap { $0.insertions.map { change -> String in
                if case let .insert(_, card, _) = change { card.title } else { "" }
            } }
        }
        #expect(inserted == titles, "\(inserted)")
    }
}

/// Waits until `containers` sessions listen for the saves of `store` when it is a PostgreSQL
/// schema (a container's listener connects in the background, and catches up once it does);
/// true at once for other stores.
func listening(_ containers: Int, on store: StoreKind) throws -> Bool {
    guard case let .postgreSQL(text, _) = store,
          let schema = PostgreSQLConnectionString.parameters(of: text)?["options"]?.split(separator: "=").last else { return true }
    let connection = try PostgreSQLConnection(PostgreSQLConnectionString(text))
    defer { connection.close() }
    return try eventually {
        let result = try connection.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%' AND strpos(query, $1) > 0", [.text(String(schema))])
        return try result.int64(row: 0, column: 0) == Int64(containers)
    }
}
