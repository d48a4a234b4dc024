/// The per-subscriber state of `min`, `max` and their try-forms: it keeps the greatest upstream
/// value by `areInIncreasingOrder` and delivers it when upstream finishes.
///
/// A new value replaces the kept one only when `areInIncreasingOrder(kept, new)` is `true`, so
/// among equal values the first stays (as with `Sequence.min()` and `max()`); `min` passes the
/// reversed ordering. The ordering returns a failure only in the try-forms, which catch what
/// their closure throws.
package final class ComparisonInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: ReducingInner<Input, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == Input {
    // `kept` is touched only from upstream's serial signals; the ordering is immutable.
    private var kept: Input?
    private let name: String
    private let areInIncreasingOrder: (Input, Input) -> Result<Bool, Downstream.Failure>

    package init(name: String, downstream: Downstream, areInIncreasingOrder: @escaping (Input, Input) -> Result<Bool, Downstream.Failure>) {
        self.areInIncreasingOrder = areInIncreasingOrder
        self.name = name
        super.init(downstream: downstream)
    }

    override package var description: String { name }

    override package func accumulate(_ input: Input) -> ReduceStep<Downstream.Failure> {
        guard let kept else {
            kept = input
            return .continue
        }
        switch areInIncreasingOrder(kept, input) {
        case .success(let increasing):
            if increasing { self.kept = input }
            return .continue
        case .failure(let error):
            return .fail(error)
        }
    }

    override package var result: Input? { kept }
}
