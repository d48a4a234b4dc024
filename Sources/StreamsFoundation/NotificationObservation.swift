#if !canImport(Combine)
import Foundation
import Streams

/// One subscriber's observation of a notification center: a conduit (the one home of delivery
/// to a pushed-to subscriber) that delivers the notifications posted while the subscriber has
/// demand and drops the others, and an observer removed when the subscriber cancels.
///
/// Notifications are posted on whatever thread posts them, so two may arrive at once; the
/// conduit delivers them one at a time (rule 3), never under its lock, and releases what it drops
/// after unlocking (rule 9).
enum NotificationObservation {
    /// Hands `subscriber` its subscription, then observes `center` for it until it cancels.
    static func start<Downstream: Subscriber>(
        _ subscriber: Downstream, center: NotificationCenter, name: Notification.Name, object: AnyObject?
    ) where Downstream.Input == Notification, Downstream.Failure == Never {
        let conduit = Conduit(subscriber)
        conduit.combineName = "NotificationCenter Observer"
        conduit.showsMirrorChildren = false
        conduit.start()
        // Held weakly as the base type, so that the observer block captures neither the
        // conduit's life nor the subscriber's type.
        weak let receiver: ConduitBase<Notification, Never>? = conduit
        let token = center.addObserver(forName: name, object: object, queue: nil) { notification in
            receiver?.offerWithinDemand(notification)
        }
        conduit.whenTerminated { center.removeObserver(token) }
    }
}

#endif
