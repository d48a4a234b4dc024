import Streams
import StreamsTesting
import Testing

/// `zip` and `combineLatest` lend their per-value state (lanes, latest values) to the thread that
/// takes their open turn (`StateMachineShell+Lent.swift`). Values, completions and cancels that
/// reach the operator while the state is lent wait in an inbox, replayed when the holder hands the
/// state back. Here the holder is the thread delivering to a subscriber that, from inside
/// `receive(_:)`, sends more values, finishes or fails an upstream, or cancels: every such event
/// arrives while the state is lent. Each seeded run is checked against a plain model of the
/// operator fed the same events in the order they were made; the seed is printed on failure.
@Suite("zip and combineLatest: events that arrive while the turn's holder has the state")
struct LentStateTests {
    typealias Generator = DifferenceApplyTests.SeededGenerator
    static let seeds: UInt64 = 300

    /// One event, as the operator sees it.
    enum Event: Equatable {
        case value(Int, side: Int)
        case completion(Subscribers.Completion<TestError>, side: Int)
        case cancel
    }

    /// What a plain model of the operator delivers for `events`: its combinations, how it ended
    /// (`nil`: still running, or cancelled), and whether downstream cancelled before it ended.
    static func model(_ events: [Event], isZip: Bool) -> (values: [[Int]], completion: Subscribers.Completion<TestError>?, cancelled: Bool) {
        var waiting: [[Int]] = [[], []]
        var latest: [Int?] = [nil, nil]
        var finished = [false, false]
        var values: [[Int]] = []
        for event in events {
            switch event {
            case .cancel:
                return (values, nil, true)
            case .value(let value, let side):
                guard !finished[side] else { continue }
                if isZip {
                    waiting[side].append(value)
                    while waiting.allSatisfy({ !$0.isEmpty }) { values.append(waiting.indices.map { waiting[$0].removeFirst() }) }
                    if (0..<2).contains(where: { finished[$0] && waiting[$0].isEmpty }) { return (values, .finished, false) }
                } else {
                    latest[side] = value
                    if latest.allSatisfy({ $0 != nil }) { values.append(latest.map { $0! }) }
                }
            case .completion(let completion, let side):
                guard !finished[side] else { continue }
                finished[side] = true
                if case .failure = completion { return (values, completion, false) }
                if isZip ? waiting[side].isEmpty : finished.allSatisfy({ $0 }) { return (values, .finished, false) }
            }
        }
        return (values, nil, false)
    }

    /// Whether `part` is `whole` with some elements left out.
    static func isSubsequence(_ part: [[Int]], of whole: [[Int]]) -> Bool {
        var rest = whole[...]
        for element in part {
            guard let position = rest.firstIndex(of: element) else { return false }
            rest = rest[(position + 1)...]
        }
        return true
    }

    /// How often an event came from inside `receive(_:)` over all seeds, by kind.
    struct Tally {
        var values = 0
        var completions = 0
        var cancels = 0
    }

    final class Run {
        var random: Generator
        var events: [Event] = []
        var nextValue = 0
        var depth = 0
        let upstreams = [TestPublisher<Int, TestError>(), TestPublisher<Int, TestError>()]
        var subscriber: TestSubscriber<(Int, Int), TestError>?
        var tally = Tally()

        init(seed: UInt64) { random = Generator(state: seed) }

        /// One random event: mostly values, now and then a completion or a cancel.
        func step(reentrant: Bool) {
            let side = Int.random(in: 0..<2, using: &random)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<85:
                nextValue += 1
                events.append(.value(nextValue, side: side))
                if reentrant { tally.values += 1 }
                upstreams[side].send(nextValue)
            case 85..<92:
                events.append(.completion(.finished, side: side))
                if reentrant { tally.completions += 1 }
                upstreams[side].send(completion: .finished)
            case 92..<95:
                events.append(.completion(.failure(.boom), side: side))
                if reentrant { tally.completions += 1 }
                upstreams[side].send(completion: .failure(.boom))
            default:
                events.append(.cancel)
                if reentrant { tally.cancels += 1 }
                subscriber?.cancel()
            }
        }
    }

    static func check(isZip: Bool, seed: UInt64, tally: inout Tally) {
        let run = Run(seed: seed)
        let subscriber = TestSubscriber<(Int, Int), TestError>(onValue: { [unowned run] _, _ in
            // The holder delivers this value with the state lent: whatever happens here waits.
            guard run.depth == 0 else { return .none }
            run.depth += 1
            for _ in 0..<Int.random(in: 0...3, using: &run.random) { run.step(reentrant: true) }
            run.depth -= 1
            return .none
        })
        run.subscriber = subscriber
        if isZip {
            run.upstreams[0].zip(run.upstreams[1]).subscribe(subscriber)
        } else {
            run.upstreams[0].combineLatest(run.upstreams[1]).subscribe(subscriber)
        }
        subscriber.request(.unlimited)
        for _ in 0..<60 { run.step(reentrant: false) }
        tally.values += run.tally.values
        tally.completions += run.tally.completions
        tally.cancels += run.tally.cancels

        let expected = model(run.events, isZip: isZip)
        let delivered = subscriber.values.map { [$0.0, $0.1] }
        // A cancel stops what has not been delivered yet, even after the model ended: a
        // completion or combinations waiting behind the delivery under way go with it.
        let cancelled = expected.cancelled || run.events.contains(.cancel) && subscriber.completion == nil
        #expect(subscriber.violations.isEmpty, "seed \(seed): \(subscriber.violations.prefix(3))")
        if cancelled {
            #expect(subscriber.completion == nil, "seed \(seed): a completion after cancel")
        } else {
            #expect(subscriber.completion == expected.completion, "seed \(seed)")
        }
        let failed = if case .failure? = expected.completion { true } else { false }
        if isZip {
            if cancelled || failed {
                // What was formed but not yet delivered goes with a cancel or a failure.
                #expect(expected.values.starts(with: delivered), "seed \(seed): \(delivered) is not a prefix of \(expected.values)")
            } else {
                #expect(delivered == expected.values, "seed \(seed)")
            }
        } else {
            // A combination that waits is replaced by a newer one; the last one is delivered.
            #expect(isSubsequence(delivered, of: expected.values), "seed \(seed): \(delivered) against \(expected.values)")
            if !cancelled, !failed { #expect(delivered.last == expected.values.last, "seed \(seed)") }
        }
    }

    @Test("zip: values, completions and cancels that arrive while the holder has the lanes are replayed in order when it hands them back; its finish is decided then")
    func zipEventsWhileLent() {
        var tally = Tally()
        for seed in 0..<Self.seeds { Self.check(isZip: true, seed: seed, tally: &tally) }
        #expect(tally.values > 500 && tally.completions > 50 && tally.cancels > 20, "\(tally)")
    }

    @Test("combineLatest: values, completions and cancels that arrive while the holder has the latest values are replayed in order when it hands them back")
    func combineLatestEventsWhileLent() {
        var tally = Tally()
        for seed in 0..<Self.seeds { Self.check(isZip: false, seed: seed, tally: &tally) }
        #expect(tally.values > 500 && tally.completions > 50 && tally.cancels > 20, "\(tally)")
    }
}
