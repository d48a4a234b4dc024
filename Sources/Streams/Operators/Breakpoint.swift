#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Publisher {
    /// Stops the process in the debugger (raises `SIGTRAP`) when one of the closures returns
    /// `true` for a signal passing through; otherwise changes nothing.
    ///
    /// Without a debugger attached, `SIGTRAP` ends the process: keep breakpoints out of
    /// shipping code.
    ///
    /// ```swift
    /// let cancellable = prices
    ///     .breakpoint(receiveOutput: { $0 < 0 })   // stop on a negative price
    ///     .sink { show($0) }
    /// ```
    public func breakpoint(
        receiveSubscription: ((any Subscription) -> Bool)? = nil,
        receiveOutput: ((Output) -> Bool)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil
    ) -> Publishers.Breakpoint<Self> {
        Publishers.Breakpoint(
            upstream: self, receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion)
    }

    /// Stops the process in the debugger (raises `SIGTRAP`) when upstream fails.
    ///
    /// ```swift
    /// let cancellable = request.breakpointOnError().sink(receiveCompletion: { _ in }, receiveValue: { _ in })
    /// ```
    public func breakpointOnError() -> Publishers.Breakpoint<Self> {
        breakpoint(receiveCompletion: { completion in
            if case .failure = completion { true } else { false }
        })
    }
}

extension Publishers {
    /// A publisher that raises `SIGTRAP` when a closure picks out a signal passing through.
    public struct Breakpoint<Upstream: Publisher>: Publisher {
        /// Upstream's output type.
        public typealias Output = Upstream.Output
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose signals are watched.
        public let upstream: Upstream
        /// Returns `true` to stop on the subscription.
        public let receiveSubscription: ((any Subscription) -> Bool)?
        /// Returns `true` to stop on a value.
        public let receiveOutput: ((Upstream.Output) -> Bool)?
        /// Returns `true` to stop on the completion.
        public let receiveCompletion: ((Subscribers.Completion<Publishers.Breakpoint<Upstream>.Failure>) -> Bool)?
        // What stopping does; tests replace it to observe the stop without a signal.
        package let trap: () -> Void

        /// Creates a publisher that raises `SIGTRAP` when one of the closures returns `true`.
        public init(
            upstream: Upstream,
            receiveSubscription: ((any Subscription) -> Bool)? = nil,
            receiveOutput: ((Upstream.Output) -> Bool)? = nil,
            receiveCompletion: ((Subscribers.Completion<Publishers.Breakpoint<Upstream>.Failure>) -> Bool)? = nil
        ) {
            self.init(
                upstream: upstream, receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
                receiveCompletion: receiveCompletion, trap: { _ = raise(SIGTRAP) })
        }

        /// Creates a breakpoint that calls `trap` instead of raising `SIGTRAP`.
        package init(
            upstream: Upstream,
            receiveSubscription: ((any Subscription) -> Bool)?,
            receiveOutput: ((Upstream.Output) -> Bool)?,
            receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)?,
            trap: @escaping () -> Void
        ) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
            self.trap = trap
        }

        /// Attaches `subscriber`, checking each signal before passing it on.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, breakpoint: self))
        }
    }
}

extension Publishers.Breakpoint {
    // Forwards the upstream subscription itself, as Combine's does: a breakpoint only watches
    // the signals that pass, so requests and cancellation go straight to upstream.
    private struct Inner<Downstream: Subscriber>: Subscriber, CombineDescribing
    where Downstream.Input == Output, Downstream.Failure == Failure {
        let downstream: Downstream
        let breakpoint: Publishers.Breakpoint<Upstream>
        let combineIdentifier = CombineIdentifier()

        var description: String { "Breakpoint" }

        func receive(subscription: any Subscription) {
            if breakpoint.receiveSubscription?(subscription) == true { breakpoint.trap() }
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Output) -> Subscribers.Demand {
            if breakpoint.receiveOutput?(input) == true { breakpoint.trap() }
            return downstream.receive(input)
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            if breakpoint.receiveCompletion?(completion) == true { breakpoint.trap() }
            downstream.receive(completion: completion)
        }
    }
}
