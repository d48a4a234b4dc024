import Streams

/// Runs standard scenarios against any publisher and reports the rules it broke, so that a test
/// can check a new publisher in one line.
///
/// ```swift
/// let report = RuleCheck.run(
///     make: { PassthroughSubject<Int, Never>() },
///     drive: { subject in (1...5).forEach(subject.send) })
/// #expect(report.isEmpty, "\(report)")
/// ```
///
/// Each scenario subscribes a fresh ``TestSubscriber`` to a fresh publisher from `make`, calls
/// `drive` after every step so that the test can feed the source, and records what the
/// subscriber saw:
/// - `no demand`: nothing may arrive before a request (rule 2);
/// - `one at a time`: requests `.max(1)` repeatedly; never more than requested (rule 2);
/// - `re-entrant`: requests `.max(1)` from inside each `receive(_:)` (rules 2, 3 and 6);
/// - `cancel`: cancels after the first value; nothing may follow (rule 5);
/// - `unlimited`: requests `.unlimited`; one completion at most, nothing after it (rule 4);
/// and every scenario checks rule 1 (subscription first, exactly once).
public enum RuleCheck {
    /// One broken rule, with the scenario that showed it.
    public struct Finding: Equatable, Sendable, CustomStringConvertible {
        /// The scenario's name.
        public let scenario: String
        /// What went wrong.
        public let violation: RuleViolation

        /// `"scenario: violation"`.
        public var description: String { "\(scenario): \(violation)" }
    }

    /// Runs every scenario; an empty result means the publisher kept every rule checked.
    ///
    /// - Parameters:
    ///   - steps: how many single-value requests the `one at a time` scenario makes.
    ///   - make: makes a fresh publisher for each scenario.
    ///   - drive: feeds the publisher (send on a subject, save a context); called after each
    ///     step. Leave it out for publishers that produce by themselves.
    public static func run<P: Publisher>(
        steps: Int = 5,
        make: () -> P,
        drive: (P) -> Void = { _ in }
    ) -> [Finding] {
        var findings: [Finding] = []
        func record(_ scenario: String, _ subscriber: TestSubscriber<P.Output, P.Failure>) {
            var violations = subscriber.violations
            if subscriber.events.isEmpty { violations.append(.noSubscription) }
            findings += violations.map { Finding(scenario: scenario, violation: $0) }
        }

        do {
            let publisher = make()
            let subscriber = TestSubscriber<P.Output, P.Failure>()
            publisher.subscribe(subscriber)
            drive(publisher)
            if subscriber.values.count > 0 {
                findings.append(Finding(scenario: "no demand", violation: .overDelivery(requested: .none, received: subscriber.values.count)))
            }
            record("no demand", subscriber)
            subscriber.cancel()
        }
        do {
            let publisher = make()
            let subscriber = TestSubscriber<P.Output, P.Failure>()
            publisher.subscribe(subscriber)
            for _ in 0..<steps {
                subscriber.request(.max(1))
                drive(publisher)
            }
            record("one at a time", subscriber)
            subscriber.cancel()
        }
        do {
            let publisher = make()
            let subscriber = TestSubscriber<P.Output, P.Failure>(onValue: { _, _ in .max(1) })
            publisher.subscribe(subscriber)
            subscriber.request(.max(1))
            drive(publisher)
            record("re-entrant", subscriber)
            subscriber.cancel()
        }
        do {
            let publisher = make()
            let subscriber = TestSubscriber<P.Output, P.Failure>(onValue: { subscriber, _ in
                subscriber.cancel()
                return .none
            })
            publisher.subscribe(subscriber)
            subscriber.request(.max(1))
            drive(publisher)
            subscriber.request(.max(5))
            drive(publisher)
            record("cancel", subscriber)
            let delivered = subscriber.values.count
            if delivered > 1 {
                findings.append(Finding(scenario: "cancel", violation: .signalAfterCancel))
            }
        }
        do {
            let publisher = make()
            let subscriber = TestSubscriber<P.Output, P.Failure>()
            publisher.subscribe(subscriber)
            subscriber.request(.unlimited)
            drive(publisher)
            drive(publisher)
            record("unlimited", subscriber)
            subscriber.cancel()
        }
        return findings
    }
}
