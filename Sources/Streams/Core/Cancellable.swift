/// Something that can be stopped: a subscription, a sink, a scheduled action.
///
/// `cancel()` is idempotent: calling it again does nothing.
public protocol Cancellable {
    /// Stops the activity and frees the resources it holds.
    func cancel()
}

extension Cancellable {
    /// Keeps this cancellable alive by storing it, type-erased, in `collection`.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        AnyCancellable(self).store(in: &collection)
    }

    /// Keeps this cancellable alive by storing it, type-erased, in `set`.
    public func store(in set: inout Set<AnyCancellable>) {
        AnyCancellable(self).store(in: &set)
    }
}
