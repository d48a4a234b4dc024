/// A type-erased cancellable that cancels when it is deinitialised.
///
/// Keep the `AnyCancellable` returned by ``Publisher/sink(receiveCompletion:receiveValue:)`` for
/// as long as you want values; dropping it cancels the subscription.
///
/// ```swift
/// var cancellables = Set<AnyCancellable>()
/// subject.sink { print($0) }.store(in: &cancellables)
/// ```
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
    // `lock` protects `cancelAction`, which is taken out under the lock and run outside it,
    // exactly once, whichever thread cancels first.
    private let lock = Lock()
    private var cancelAction: (() -> Void)?

    /// Creates a cancellable that runs `cancel` once, when cancelled or deinitialised.
    public init(_ cancel: @escaping () -> Void) {
        cancelAction = cancel
    }

    /// Wraps `canceller`; cancelling this cancels it.
    public init<C: Cancellable>(_ canceller: C) {
        if let erased = canceller as? AnyCancellable {
            cancelAction = erased.cancel
        } else {
            cancelAction = canceller.cancel
        }
    }

    deinit {
        cancelAction?()
    }

    /// Cancels the wrapped activity. Further calls do nothing.
    /// Lets go of the cancel action without running it: what it would cancel has already
    /// ended. A `sink` whose stream completes calls this, so that the cancellable a user keeps
    /// no longer holds the sink and its closures.
    package func releaseWithoutCancelling() {
        lock.lock()
        let action = cancelAction
        cancelAction = nil
        lock.unlock()
        withExtendedLifetime(action) {}
    }

    public func cancel() {
        lock.lock()
        let action = cancelAction
        cancelAction = nil
        lock.unlock()
        action?()
    }

    /// Stores this cancellable in `collection`.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        collection.append(self)
    }

    /// Stores this cancellable in `set`.
    public func store(in set: inout Set<AnyCancellable>) {
        set.insert(self)
    }

    /// Two `AnyCancellable`s are equal when they are the same instance.
    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool {
        lhs === rhs
    }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
