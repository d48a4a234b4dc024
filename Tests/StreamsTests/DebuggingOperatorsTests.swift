import Dispatch
import Streams
import StreamsTesting
import Testing

/// Collects what the hooks of `handleEvents` report, in order.
private final class EventLog {
    var entries: [String] = []
}

/// Keeps everything written to it, split into lines.
private final class LineCollector: TextOutputStream {
    private var text = ""
    var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    func write(_ string: String) { text += string }
}

private final class Token {}

/// Keeps every write, as it was made.
private final class WriteRecorder: TextOutputStream {
    var writes: [String] = []
    func write(_ string: String) { writes.append(string) }
}

extension Publisher {
    /// Logs every hook of `handleEvents` into `log`.
    fileprivate func logEvents(into log: EventLog) -> Publishers.HandleEvents<Self> {
        handleEvents(
            receiveSubscription: { _ in log.entries.append("subscription") },
            receiveOutput: { log.entries.append("output \($0)") },
            receiveCompletion: { log.entries.append("completion \($0)") },
            receiveCancel: { log.entries.append("cancel") },
            receiveRequest: { log.entries.append("request \($0)") })
    }
}

@Suite("handleEvents")
struct HandleEventsTests {
    @Test("runs each hook before the signal is passed on, and passes every signal on unchanged")
    func hooks() {
        let log = EventLog()
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { _ in log.entries.append("subscriber got subscription") },
            onValue: { _, value in log.entries.append("subscriber got \(value)"); return .none },
            onCompletion: { _, _ in log.entries.append("subscriber got completion") })
        [1, 2].publisher.logEvents(into: log).subscribe(subscriber)
        subscriber.request(.unlimited)
        #expect(log.entries == [
            "subscription", "subscriber got subscription", "request unlimited",
            "output 1", "subscriber got 1", "output 2", "subscriber got 2",
            "completion finished", "subscriber got completion",
        ])
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("receiveRequest sees requested demand and demand returned from receive(_:); upstream gets both")
    func demand() {
        let log = EventLog()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(onValue: { _, _ in .max(2) })
        upstream.logEvents(into: log).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(upstream.requests == [.max(1)])
        #expect(upstream.send(7) == .max(2))
        #expect(log.entries == ["subscription", "request max(1)", "output 7", "request max(2)"])
        let limited = (1...10).publisher.handleEvents().record(requesting: .max(1))
        #expect(limited.values == [1])
    }

    @Test("failure is passed on after receiveCompletion, and nothing follows it")
    func failure() {
        let log = EventLog()
        let chain = handDriven(Int.self) { $0.logEvents(into: log) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(completion: .failure(.boom))
        chain.upstream.send(1)
        chain.upstream.send(completion: .finished)
        chain.subscriber.cancel()
        #expect(chain.subscriber.completion == .failure(.boom))
        #expect(chain.subscriber.values.isEmpty)
        #expect(chain.subscriber.violations.isEmpty)
        #expect(log.entries == ["subscription", "request unlimited", "completion failure(StreamsTests.TestError.boom)"])
    }

    @Test("cancel runs receiveCancel once and reaches upstream")
    func cancel() {
        let log = EventLog()
        let upstream = cancelling { $0.logEvents(into: log) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
        #expect(log.entries == ["subscription", "request max(2)", "cancel"])
    }

    @Test("the hooks are released once the stream ends")
    func releasesHooks() {
        weak var released: Token?
        let chain = handDriven(Int.self) { upstream in
            let token = Token()
            released = token
            return upstream.handleEvents(receiveOutput: { _ in withExtendedLifetime(token) {} })
        }
        #expect(released != nil)
        chain.upstream.send(completion: .finished)
        #expect(released == nil)
        #expect(chain.subscriber.completion == .finished)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.handleEvents(receiveOutput: { _ in }, receiveRequest: { _ in }) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.handleEvents(receiveCancel: {}) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("print")
struct PrintTests {
    @Test("logs subscription, requests, values and finishing, each after the prefix")
    func logsLifecycle() {
        let output = LineCollector()
        let subscriber = [1, 2].publisher.print("numbers", to: output).record(requesting: .max(1))
        subscriber.request(.unlimited)
        #expect(output.lines.count == 8)
        #expect(output.lines.first?.hasPrefix("numbers: receive subscription: (") == true)
        #expect(Array(output.lines.dropFirst()) == [
            "numbers: request max: (1)",
            "numbers: receive value: (1)",
            "numbers: request max: (0) (synchronous)",
            "numbers: request unlimited",
            "numbers: receive value: (2)",
            "numbers: request max: (0) (synchronous)",
            "numbers: receive finished",
        ])
        #expect(subscriber.values == [1, 2])
    }

    @Test("writes each line as Combine's print does: through print(_:to:), an empty write, the line, then the newline")
    func writesAsCombine() {
        let recorder = WriteRecorder()
        _ = Just(1).print("p", to: recorder).sink { _ in }
        #expect(recorder.writes.prefix(6) == ["", "p: receive subscription: (Just)", "\n", "", "p: request unlimited", "\n"])
        #expect(recorder.writes.count == 15)
    }

    @Test("logs demand returned from receive(_:) as synchronous, every time and as Combine does, and cancel")
    func logsSynchronousDemandAndCancel() {
        let output = LineCollector()
        let subscriber = TestSubscriber<Int, Never>(onValue: { subscriber, value in
            if value == 2 { subscriber.cancel() }
            return .max(1)
        })
        (1...5).publisher.print("", to: output).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(Array(output.lines.dropFirst()) == [
            "request max: (1)",
            "receive value: (1)",
            "request max: (1) (synchronous)",
            "receive value: (2)",
            "receive cancel",
            "request max: (1) (synchronous)",
        ])
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("logs a failure with its error and passes it on; logs, as Combine's, what upstream sends after it, without passing it on")
    func logsFailure() {
        let output = LineCollector()
        let chain = handDriven(Int.self) { $0.print(">", to: output) }
        chain.subscriber.request(.unlimited)
        chain.upstream.send(completion: .failure(.boom))
        chain.upstream.send(1)
        #expect(Array(output.lines.dropFirst()) == [
            ">: request unlimited", ">: receive error: (boom)", ">: receive value: (1)", ">: request max: (0) (synchronous)",
        ])
        #expect(chain.subscriber.completion == .failure(.boom))
        #expect(chain.subscriber.violations.isEmpty)
    }

    @Test("requests from many threads at once are each logged once, whole and in one piece")
    func concurrentRequests() {
        let output = LineCollector()
        let chain = handDriven(Int.self) { $0.print("p", to: output) }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<100 { chain.subscriber.request(.max(1)) }
        }
        #expect(chain.upstream.requests.count == 800)
        #expect(output.lines.dropFirst().filter { $0 == "p: request max: (1)" }.count == 800)
        #expect(output.lines.count == 801)
    }

    @Test("demand passes through and cancel reaches upstream")
    func demandAndCancel() {
        let output = LineCollector()
        let limited = (1...10).publisher.print(to: output).record(requesting: .max(1))
        #expect(limited.values == [1])
        let upstream = cancelling { $0.print(to: output) }
        #expect(upstream.requests == [.max(2)])
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let output = LineCollector()
        let findings = ruleFindings { $0.print("rules", to: output) }
        #expect(findings.isEmpty, "\(findings)")
        let sequence = RuleCheck.run(make: { (1...20).publisher.print(to: output) })
        #expect(sequence.isEmpty, "\(sequence)")
    }
}

@Suite("assertNoFailure")
struct AssertNoFailureTests {
    @Test("passes values and finishing on")
    func values() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.assertNoFailure().subscribe(subscriber)
        subscriber.request(.unlimited)
        subject.send(1)
        subject.send(completion: .finished)
        subject.send(2)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("demand passes through: one value per value requested")
    func demand() {
        let subscriber = (1...10).publisher.setFailureType(to: TestError.self).assertNoFailure().record(requesting: .max(1))
        #expect(subscriber.values == [1])
        let upstream = TestPublisher<Int, TestError>()
        let downstream = TestSubscriber<Int, Never>()
        upstream.assertNoFailure().subscribe(downstream)
        downstream.request(.max(2))
        #expect(upstream.requests == [.max(2)])
    }

    @Test("a failure stops the process with a message that has the prefix and the error")
    func failureIsFatal() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subject = PassthroughSubject<Int, TestError>()
            let cancellable = subject.assertNoFailure("must not fail").sink { _ in }
            subject.send(completion: .failure(.boom))
            withExtendedLifetime(cancellable) {}
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("must not fail: boom"), "\(message)")
    }

    @Test("cancel reaches upstream")
    func cancel() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.assertNoFailure().subscribe(subscriber)
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(upstream.cancelCount == 1)
    }

    @Test("keeps the stream rules")
    func rules() {
        let findings = ruleFindings { $0.assertNoFailure() }
        #expect(findings.isEmpty, "\(findings)")
    }
}
