extension ConduitBase: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
    /// As Combine's subscriptions to a `CurrentValueSubject` or a `Future`.
    @usableFromInline package var description: String { combineName }

    /// Combine's mirror: the publisher, the subscriber, its demand (a `Future`'s: whether it
    /// has any) and the publisher again, as `subject`.
    @usableFromInline package var customMirror: Mirror { Mirror(self, children: mirrorChildren()) }

    /// The description, as Combine's types show it in a playground.
    @usableFromInline package var playgroundDescription: Any { description }
}
