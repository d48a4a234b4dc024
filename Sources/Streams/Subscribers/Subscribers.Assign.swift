extension Subscribers {
    /// A subscriber that writes each value to a property of an object.
    ///
    /// Usually made with ``Publisher/assign(to:on:)``. It holds the object strongly until the
    /// stream completes or is cancelled.
    public final class Assign<Root, Input>: Subscriber, Cancellable, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        /// `Assign` never fails.
        public typealias Failure = Never

        // `lock` protects `object` and `upstream`; both are released on completion or cancel.
        private let lock = Lock()
        private var upstream: (any Subscription)?
        private var isTerminated = false

        /// The object written to, until completion or cancel.
        public private(set) var object: Root?
        /// The property written to.
        public let keyPath: ReferenceWritableKeyPath<Root, Input>

        /// Creates a subscriber that writes to `object[keyPath: keyPath]`.
        public init(object: Root, keyPath: ReferenceWritableKeyPath<Root, Input>) {
            self.object = object
            self.keyPath = keyPath
        }

        /// `"Assign <Root>."`.
        public var description: String { "Assign \(Root.self)." }

        /// Combine's mirror: the object, the key path and the upstream subscription.
        public var customMirror: Mirror {
            let (object, upstream) = lock.withLock { (self.object, self.upstream) }
            return Mirror(self, children: [("object", object as Any), ("keyPath", keyPath), ("status", upstream as Any)])
        }

        /// The description, as Combine shows it in a playground.
        public var playgroundDescription: Any { description }

        /// Keeps the first subscription and requests unlimited values; cancels any later one.
        public func receive(subscription: any Subscription) {
            lock.lock()
            guard upstream == nil, !isTerminated else {
                lock.unlock()
                subscription.cancel()
                return
            }
            upstream = subscription
            lock.unlock()
            subscription.request(.unlimited)
        }

        /// Writes `value` to the property — only while subscribed: as Combine's, a value that
        /// arrives before the subscription or after the end is ignored.
        public func receive(_ value: Input) -> Subscribers.Demand {
            lock.lock()
            let object = upstream == nil ? nil : self.object
            lock.unlock()
            object?[keyPath: keyPath] = value
            return .none
        }

        /// Lets go of the object and the subscription.
        public func receive(completion: Subscribers.Completion<Never>) {
            terminate(cancelUpstream: false)
        }

        /// Cancels the subscription and lets go of the object.
        public func cancel() {
            terminate(cancelUpstream: true)
        }

        private func terminate(cancelUpstream: Bool) {
            lock.lock()
            let subscription = upstream
            let released = object
            upstream = nil
            object = nil
            isTerminated = true
            lock.unlock()
            withExtendedLifetime(released) {}
            if cancelUpstream { subscription?.cancel() }
        }
    }
}

extension Publisher where Failure == Never {
    /// Writes each value to `object[keyPath: keyPath]`.
    ///
    /// ```swift
    /// let cancellable = $name.assign(to: \.text, on: label)
    /// ```
    /// - Returns: a cancellable; the object is held strongly while you keep it.
    public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root) -> AnyCancellable {
        let assign = Subscribers.Assign(object: object, keyPath: keyPath)
        subscribe(assign)
        return AnyCancellable(assign)
    }
}
