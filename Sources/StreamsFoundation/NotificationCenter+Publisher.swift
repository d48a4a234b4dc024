// Compiled where Combine is absent: on Apple platforms Foundation declares these publishers
// itself, and ours would clash with them (see Docs/PortingFromCombine.md).
#if !canImport(Combine)
import Foundation
import Streams

extension NotificationCenter {
    /// A publisher of the notifications this center posts with `name` (and from `object`, if
    /// given), as Combine's.
    ///
    /// ```swift
    /// let cancellable = NotificationCenter.default
    ///     .publisher(for: .NSSystemClockDidChange)
    ///     .sink { print($0.name) }
    /// ```
    public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> NotificationCenter.Publisher {
        NotificationCenter.Publisher(center: self, name: name, object: object)
    }

    /// A publisher of notifications, made by ``NotificationCenter/publisher(for:object:)``.
    ///
    /// Each subscriber is an observer of the center from the moment it subscribes until it
    /// cancels. A notification posted while the subscriber has no demand is dropped, as a
    /// `PassthroughSubject` drops a value; the stream never finishes.
    public struct Publisher: Streams.Publisher, @unchecked Sendable {  // immutable; `object` is only compared
        /// A posted notification.
        public typealias Output = Notification
        /// It cannot fail.
        public typealias Failure = Never

        /// The center observed.
        public let center: NotificationCenter
        /// The name of the notifications published.
        public let name: Notification.Name
        /// The object whose notifications are published, or `nil` for any sender.
        public let object: AnyObject?

        /// Creates a publisher of `center`'s notifications named `name`, from `object` if given.
        public init(center: NotificationCenter, name: Notification.Name, object: AnyObject? = nil) {
            self.center = center
            self.name = name
            self.object = object
        }

        /// Makes `subscriber` an observer of the center until it cancels.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Notification, S.Failure == Never {
            NotificationObservation.start(subscriber, center: center, name: name, object: object)
        }
    }
}

extension NotificationCenter.Publisher: Equatable {
    /// Two publishers are equal when they observe the same center, name and object.
    public static func == (lhs: NotificationCenter.Publisher, rhs: NotificationCenter.Publisher) -> Bool {
        lhs.center === rhs.center && lhs.name == rhs.name && lhs.object === rhs.object
    }
}
#endif
