import Streams

/// A break of one of the stream rules, as seen by a ``TestSubscriber``.
///
/// The rule numbers are those of the design notes (`DESIGN.md`, "Streams: the protocol").
public enum RuleViolation: Equatable, Sendable, CustomStringConvertible {
    /// Rule 1: a value or completion arrived before the subscription.
    case signalBeforeSubscription
    /// Rule 1: `receive(subscriber:)` returned without sending a subscription.
    case noSubscription
    /// Rule 1: a second subscription arrived (the subscriber cancelled it).
    case duplicateSubscription
    /// Rule 2: more values arrived than were requested.
    case overDelivery(requested: Subscribers.Demand, received: Int)
    /// Rule 3: a signal arrived while another was still being handled.
    case overlappingSignals
    /// Rule 4: a value or completion arrived after a completion.
    case signalAfterCompletion
    /// Rule 5: a value or completion began after `cancel()` had returned and was not the one
    /// delivery already under way on another thread: it came on the cancelling thread, or a
    /// signal was still being handled when `cancel()` returned, or another one had already
    /// arrived since.
    case signalAfterCancel

    /// A sentence naming the rule that was broken.
    public var description: String {
        switch self {
        case .signalBeforeSubscription: "rule 1: a signal arrived before the subscription"
        case .noSubscription: "rule 1: no subscription arrived"
        case .duplicateSubscription: "rule 1: a second subscription arrived"
        case let .overDelivery(requested, received):
            "rule 2: received \(received) values but requested \(requested)"
        case .overlappingSignals: "rule 3: two signals overlapped"
        case .signalAfterCompletion: "rule 4: a signal arrived after the completion"
        case .signalAfterCancel:
            "rule 5: a signal arrived after cancel() returned that was not the one delivery already under way on another thread"
        }
    }
}
