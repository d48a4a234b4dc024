import Streams

/// A subscriber that keeps the subscription it is given and asks for nothing by itself: what a
/// Combine user's tests use to look at a subscription's description, mirror and demand.
final class SubscriptionProbe<Input, Failure: Error>: Subscriber, @unchecked Sendable {  // used from one thread
    private(set) var subscription: (any Subscription)?
    private(set) var values: [Input] = []
    private(set) var completion: Subscribers.Completion<Failure>?
    private let initialDemand: Subscribers.Demand

    init(requesting initialDemand: Subscribers.Demand = .none) {
        self.initialDemand = initialDemand
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        if initialDemand > 0 { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        values.append(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        self.completion = completion
    }

    /// The subscription's description, as `print()` and a debugger show it.
    var subscriptionDescription: String { subscription.map { String(describing: $0) } ?? "none" }

    /// The subscription's playground description, as text.
    var playgroundText: String? {
        (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
    }

    /// The labels of the subscription's mirror's children.
    var mirrorLabels: [String] {
        guard let subscription else { return [] }
        return Mirror(reflecting: subscription).children.compactMap(\.label)
    }
}

extension Publisher {
    /// Subscribes a fresh ``SubscriptionProbe``.
    func probe(requesting demand: Subscribers.Demand = .none) -> SubscriptionProbe<Output, Failure> {
        let probe = SubscriptionProbe<Output, Failure>(requesting: demand)
        subscribe(probe)
        return probe
    }
}

/// Collects what `print` writes.
final class PrintLog: TextOutputStream, @unchecked Sendable {  // used from one thread
    private(set) var lines: [String] = []
    func write(_ string: String) {
        let line = string.trimmingCharacters(in: .newlines)
        if !line.isEmpty { lines.append(line) }
    }
}

private extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        var text = Substring(self)
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}

private extension Set where Element == Character {
    static var newlines: Set<Character> { ["\n", "\r"] }
}
