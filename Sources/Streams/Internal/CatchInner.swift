/// The per-subscriber state of `catch` and `tryCatch`: it runs upstream, and after upstream
/// fails, the replacement publisher made from the error, asking it for the demand still
/// outstanding.
///
/// `makeReplacement` returns a failure only for `tryCatch`, whose handler may throw; the stream
/// then fails with that error and no replacement is subscribed.
package final class CatchInner<Upstream: Publisher, Replacement: Publisher, Downstream: Subscriber>: SequentialInner<Downstream>, @unchecked Sendable
where Upstream.Output == Replacement.Output, Downstream.Input == Upstream.Output {
    // Immutable; the base class's lock protects everything else.
    private let makeReplacement: (Upstream.Failure) -> Result<Replacement, Downstream.Failure>
    private let mapReplacementFailure: (Replacement.Failure) -> Downstream.Failure

    private let name: String

    package init(
        name: String,
        downstream: Downstream,
        makeReplacement: @escaping (Upstream.Failure) -> Result<Replacement, Downstream.Failure>,
        mapReplacementFailure: @escaping (Replacement.Failure) -> Downstream.Failure
    ) {
        self.makeReplacement = makeReplacement
        self.mapReplacementFailure = mapReplacementFailure
        self.name = name
        super.init(downstream: downstream)
    }

    override package var description: String { name }

    override package var showsDownstreamAndDemand: Bool { true }

    package func start(_ upstream: Upstream) {
        start(with: upstream) { [self] completion in
            guard case .failure(let error) = completion else { return finish(.finished) }
            switch makeReplacement(error) {
            case .success(let replacement):
                subscribe(to: replacement) { [self] in finish($0.mappingError(mapReplacementFailure)) }
            case .failure(let handlerError):
                finish(.failure(handlerError))
            }
        }
    }
}
