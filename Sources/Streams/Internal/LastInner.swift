/// The per-subscriber state of `last()`, `last(where:)` and `tryLast(where:)`: it keeps the
/// latest upstream value that passes `test` and delivers it when upstream finishes.
///
/// The test returns a failure only in `tryLast(where:)`, which catches what its closure throws.
package final class LastInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: ReducingInner<Input, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == Input {
    // `last` is touched only from upstream's serial signals; `test` is immutable.
    private var last: Input?
    private let name: String
    private let test: (Input) -> Result<Bool, Downstream.Failure>

    package init(name: String, downstream: Downstream, test: @escaping (Input) -> Result<Bool, Downstream.Failure>) {
        self.test = test
        self.name = name
        super.init(downstream: downstream)
    }

    override package var description: String { name }

    override package func accumulate(_ input: Input) -> ReduceStep<Downstream.Failure> {
        switch test(input) {
        case .success(let passes):
            if passes { last = input }
            return .continue
        case .failure(let error):
            return .fail(error)
        }
    }

    override package var result: Input? { last }
}
