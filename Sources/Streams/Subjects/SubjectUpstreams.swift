/// The upstream subscriptions a subject was given with ``Publisher/subscribe(_:)->_``,
/// and when to ask them for values.
///
/// As Combine's: a ``CurrentValueSubject``, which keeps its value, asks each upstream for
/// unlimited values as soon as it gets it; a ``PassthroughSubject``, which keeps nothing, waits
/// until one of its subscribers has asked for a value, so that what upstream sends is not
/// dropped for want of a listener (`[1, 2, 3].publisher.subscribe(subject)`, then
/// `subject.sink { … }`, delivers 1, 2, 3). Upstreams are let go of when the subject completes
/// and cancelled when it goes away.
///
/// Not synchronised: the owning subject's lock guards it, and the calls out (``answer(_:_:)``,
/// and asking, cancelling or releasing what the mutating members return) are made after
/// unlocking.
struct SubjectUpstreams {
    /// What to do with an upstream subscription just given to the subject.
    enum Answer {
        /// Ask it for unlimited values now.
        case request
        /// Keep it; it is asked once a subscriber has demand.
        case waitForDemand
        /// The subject has completed: cancel it.
        case cancel
    }

    private var subscriptions: [any Subscription] = []
    /// Whether upstreams are asked as soon as they arrive.
    private let asksAtOnce: Bool
    /// Whether a subscriber has asked for a value (only counted when not asking at once).
    private(set) var downstreamHasAsked = false

    /// - Parameter asksAtOnce: ask each upstream when it arrives (`CurrentValueSubject`), rather
    ///   than on the first downstream demand (`PassthroughSubject`).
    init(asksAtOnce: Bool) {
        self.asksAtOnce = asksAtOnce
    }

    /// Keeps `subscription` if the subject has not completed, and says what to do with it.
    mutating func keep(_ subscription: any Subscription, ifOpen isOpen: Bool) -> Answer {
        guard isOpen else { return .cancel }
        subscriptions.append(subscription)
        return asksAtOnce || downstreamHasAsked ? .request : .waitForDemand
    }

    /// Carries out `answer` for `subscription`.
    static func answer(_ answer: Answer, _ subscription: any Subscription) {
        switch answer {
        case .request: subscription.request(.unlimited)
        case .waitForDemand: break
        case .cancel: subscription.cancel()
        }
    }

    /// A subscriber asked for values: returns the upstreams to ask for unlimited values now
    /// (the first time only).
    mutating func downstreamAsked() -> [any Subscription] {
        guard !downstreamHasAsked else { return [] }
        downstreamHasAsked = true
        return asksAtOnce ? [] : subscriptions
    }

    /// Forgets every subscription and returns them, to be released or cancelled outside the lock.
    mutating func removeAll() -> [any Subscription] {
        defer { subscriptions = [] }
        return subscriptions
    }
}
