extension ConduitBase: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
    /// As Combine's subscriptions to a `CurrentValueSubject` or a `Future`.
    @usableFromInline package var description: String { combineName }

    /// Combine's mirror of these subscriptions has no children we keep in the same shape.
    @usableFromInline package var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

    /// The description, as Combine's types show it in a playground.
    @usableFromInline package var playgroundDescription: Any { description }
}
