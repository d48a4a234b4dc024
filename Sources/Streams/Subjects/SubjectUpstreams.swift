/// The upstream subscriptions a subject was given with ``Publisher/subscribe(_:)-(Subject)``:
/// asked for unlimited values when kept, let go when the subject completes, and cancelled when
/// it goes away.
///
/// Not synchronised: the owning subject's lock guards it, and the calls out (`answer`, and
/// cancelling or releasing what `removeAll` returns) are made after unlocking.
struct SubjectUpstreams {
    private var subscriptions: [any Subscription] = []

    /// Keeps `subscription` if the subject has not completed; returns whether it was kept.
    mutating func keep(_ subscription: any Subscription, ifOpen isOpen: Bool) -> Bool {
        if isOpen { subscriptions.append(subscription) }
        return isOpen
    }

    /// Asks a kept subscription for unlimited values, and cancels one that was not kept.
    static func answer(_ subscription: any Subscription, kept: Bool) {
        if kept { subscription.request(.unlimited) } else { subscription.cancel() }
    }

    /// Forgets every subscription and returns them, to be released or cancelled outside the lock.
    mutating func removeAll() -> [any Subscription] {
        defer { subscriptions = [] }
        return subscriptions
    }
}
