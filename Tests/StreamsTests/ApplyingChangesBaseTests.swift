import Streams
import StreamsTesting
import Testing

/// What `applyingChanges` applies each difference to, when its results do not come straight
/// back through the property: a `receive(on:)` hop before the sink, or a write to the property
/// by something else (see Docs/LiveResults.md, "applyingChanges").
@Suite("applyingChanges: the collection each difference is applied to")
struct ApplyingChangesBaseTests {
    /// A view model with one array that follows a stream of differences of `[Int]`.
    final class Board {
        @Published var rows: [String] = []
        let changes = PassthroughSubject<CollectionDifference<Int>, Never>()
        /// The source collection the differences describe.
        private(set) var source: [Int] = []
        private(set) var published: [[String]] = []
        var cancellable: AnyCancellable?

        /// What `rows` must show once every result has landed.
        var expectedRows: [String] { source.map(Self.row) }

        static func row(_ value: Int) -> String { "#\(value)" }

        /// Sends the difference from the current source to `new`.
        func change(to new: [Int]) {
            let difference = new.difference(from: source)
            source = new
            changes.send(difference)
        }

        /// Follows the changes, with results delivered through `hop`, then assigned to `rows`;
        /// `onResult` runs after each assignment.
        func follow<P: Publisher<[String], Never>>(
            through hop: (AnyPublisher<[String], Never>) -> P,
            onResult: @escaping (Board) -> Void = { _ in }
        ) {
            cancellable = hop($rows.applyingChanges(changes, Self.row).eraseToAnyPublisher())
                .sink { [unowned self] rows in
                    published.append(rows)
                    self.rows = rows
                    onResult(self)
                }
        }
    }

    @Test("with a receive(on:) hop, a result that comes back late through the property never replaces a newer one")
    func resultsComingBackLate() {
        let board = Board()
        let scheduler = TestScheduler()
        var results = 0
        board.follow(through: { $0.receive(on: scheduler) }) { board in
            results += 1
            // While the second result still waits in the hop, the first has come back through
            // the property; the next difference follows the second.
            if results == 1 { board.change(to: [0, 1, 2, 3]) }
        }
        board.change(to: [1, 2])
        board.change(to: [1, 2, 3])
        scheduler.advance()
        #expect(board.published == [["#1", "#2"], ["#1", "#2", "#3"], ["#0", "#1", "#2", "#3"]])
        #expect(board.rows == board.expectedRows)
    }

    @Test("with a hop, differences that arrive between late results are each applied to the newest result")
    func manyResultsInFlight() {
        // Grow, shrink and reorder, so that a difference applied to a stale result would not
        // give the same array.
        var sources: [[Int]] = []
        var source: [Int] = []
        for step in 0..<40 {
            if step % 3 == 2, !source.isEmpty { source.removeFirst() } else { source.insert(step, at: step % (source.count + 1)) }
            sources.append(source)
        }
        var script = sources[...]
        let board = Board()
        let scheduler = TestScheduler()
        // Each result that lands sends the next change: it arrives while four results are in
        // the hop, and after earlier ones came back through the property.
        board.follow(through: { $0.receive(on: scheduler) }) { board in
            if let next = script.popFirst() { board.change(to: next) }
        }
        for _ in 0..<5 { board.change(to: script.popFirst()!) }
        scheduler.advance()
        #expect(board.published == sources.map { $0.map(Board.row) })
        #expect(board.rows == board.expectedRows)
    }

    @Test("a write to the property by something else is what the next difference is applied to, when it fits")
    func foreignWriteThatFits() {
        let board = Board()
        board.follow(through: { $0 })
        board.change(to: [1, 2])
        board.rows[1] = "edited"
        board.change(to: [1, 2, 3])
        #expect(board.rows == ["#1", "edited", "#3"])
    }

    @Test("a write the next difference does not fit neither traps nor corrupts: the difference is applied to the operator's previous result")
    func foreignWriteThatDoesNotFit() {
        let board = Board()
        board.follow(through: { $0 })
        board.change(to: [1, 2])
        board.rows = []
        board.change(to: [1, 2, 3])
        #expect(board.rows == ["#1", "#2", "#3"])
    }

    @Test("a write through a hop: the latest write is the base until the next difference, results in flight do not undo it")
    func foreignWriteWithHop() {
        let board = Board()
        let scheduler = TestScheduler()
        board.follow(through: { $0.receive(on: scheduler) })
        board.change(to: [1, 2])
        scheduler.advance()
        board.rows = ["#1", "edited"]
        board.change(to: [1, 2, 3])
        scheduler.advance()
        #expect(board.rows == ["#1", "edited", "#3"])
    }

    @Test("a difference that fits neither the property nor the previous result is not applied, and the next one still is")
    func differenceThatFitsNothing() throws {
        let collections = TestPublisher<[String], Never>()
        let changes = TestPublisher<CollectionDifference<Int>, Never>()
        let subscriber = TestSubscriber<[String], Never>()
        collections.applyingChanges(changes, Board.row).subscribe(subscriber)
        subscriber.request(.max(2))
        collections.send([])
        changes.send([1, 2].difference(from: []))
        let misfit = try #require(CollectionDifference<Int>([.remove(offset: 5, element: 9, associatedWith: nil)]))
        #expect(changes.send(misfit) == .max(1), "a difference that is not applied is replaced by asking for one more")
        changes.send([1, 2, 3].difference(from: [1, 2]))
        #expect(subscriber.values == [["#1", "#2"], ["#1", "#2", "#3"]])
        #expect(subscriber.violations.isEmpty)
    }
}
