/// What Combine's subscriptions and subscribers show a debugger, `print()` and a playground: a
/// short name such as `"Map"`, `"TryFilter"` or `"Sink"`, a mirror, and the name again as the
/// playground description.
///
/// Our internal subscription and subscriber types adopt it so that ported code that prints,
/// logs or asserts on these descriptions reads the same as with Combine. A type supplies its
/// `description` and, when Combine's mirror has children, its own `customMirror`; the default
/// mirror has none, as most of Combine's have.
@usableFromInline
protocol CombineDescribing: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {}

extension CombineDescribing {
    /// A mirror with no children.
    @usableFromInline var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

    /// The description, as Combine's types show it in a playground.
    @usableFromInline var playgroundDescription: Any { description }
}
