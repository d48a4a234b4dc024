import Dispatch
import Streams
import StreamsTesting
import Testing

// The examples of Docs/Schedulers.md, kept compiling and true.

private final class SearchModel {
    @Published var query = ""
    @Published private(set) var searches: [String] = []
    private var cancellables = Set<AnyCancellable>()

    init<S: Scheduler>(scheduler: S) {
        $query
            .dropFirst()
            .debounce(for: .milliseconds(300), scheduler: scheduler)
            .removeDuplicates()
            .sink { [weak self] in self?.searches.append($0) }
            .store(in: &cancellables)
    }
}

private final class Clock {
    let ticks: AnyPublisher<AnyScheduler.SchedulerTimeType, Never>
    init(scheduler: AnyScheduler = AnyScheduler(DispatchQueue.main)) {
        ticks = SchedulerTimer(every: .seconds(1), scheduler: scheduler).eraseToAnyPublisher()
    }
}

private final class Lines: @unchecked Sendable {  // `lock` protects `lines`
    private let lock = Lock()
    private var lines: [String] = []
    func print(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

@Suite("the schedulers guide")
struct SchedulersGuideTests {
    @Test("searches once the user pauses typing")
    func searchesAfterAPause() {
        let scheduler = TestScheduler()
        let model = SearchModel(scheduler: scheduler)
        model.query = "s"
        model.query = "sw"
        scheduler.advance(by: .milliseconds(299))
        #expect(model.searches == [])
        scheduler.advance(by: .milliseconds(1))
        #expect(model.searches == ["sw"])
        model.query = "swift"
        scheduler.advance(by: .seconds(1))
        #expect(model.searches == ["sw", "swift"])
    }

    @Test("work scheduled by work runs in the same advance, after work already due")
    func order() {
        let scheduler = TestScheduler()
        let output = Lines()
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) {
            output.print("A")
            scheduler.schedule { output.print("C") }
        }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { output.print("B") }
        scheduler.advance(by: .seconds(1))
        #expect(output.all == ["A", "B", "C"])
    }

    @Test("a type-erased scheduler lets a test drive a clock")
    func clock() {
        let scheduler = TestScheduler()
        let subscriber = TestSubscriber<AnyScheduler.SchedulerTimeType, Never>()
        Clock(scheduler: AnyScheduler(scheduler)).ticks.subscribe(subscriber)
        subscriber.request(.unlimited)
        scheduler.advance(by: .seconds(3))
        #expect(subscriber.values == [1, 2, 3].map { TestScheduler.SchedulerTimeType(nanoseconds: $0 * 1_000_000_000) })
    }
}
