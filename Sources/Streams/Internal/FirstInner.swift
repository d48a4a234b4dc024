/// The per-subscriber state of `first()`, `first(where:)` and `tryFirst(where:)`: it keeps the
/// first upstream value that passes `test`, cancels upstream, and delivers the value once the
/// subscriber has asked for one.
///
/// As Combine's, it asks upstream for unlimited values at once: a value that fails the test is
/// never delivered, so only the one value that passes needs the subscriber's demand. The test
/// returns a failure only in `tryFirst(where:)`, which catches what its closure throws.
package final class FirstInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: ReducingInner<Input, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == Input {
    // `first` is touched only from upstream's serial signals; the rest is immutable.
    private var first: Input?
    private let name: String
    private let test: (Input) -> Result<Bool, Downstream.Failure>

    package init(name: String, downstream: Downstream, test: @escaping (Input) -> Result<Bool, Downstream.Failure>) {
        self.name = name
        self.test = test
        super.init(downstream: downstream)
    }

    override package var description: String { name }

    override package func accumulate(_ input: Input) -> ReduceStep<Downstream.Failure> {
        switch test(input) {
        case .success(false): return .continue
        case .success(true): first = input; return .finish
        case .failure(let error): return .fail(error)
        }
    }

    override package var result: Input? { first }
}
