/// The per-subscriber state of `contains`, `allSatisfy` and their try-forms: it stops at the
/// first upstream value that passes `test`, cancels upstream and answers `answerIfFound`; if
/// upstream finishes first, it answers the opposite.
///
/// `allSatisfy(p)` searches for a value that fails `p` and answers `false` if it finds one. The
/// test returns a failure only in the try-forms, which catch what their closure throws.
package final class SearchInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: ReducingInner<Input, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == Bool {
    // `found` is touched only from upstream's serial signals; the rest is immutable.
    private var found = false
    private let answerIfFound: Bool
    private let name: String
    private let test: (Input) -> Result<Bool, Downstream.Failure>

    package init(name: String, downstream: Downstream, answerIfFound: Bool, test: @escaping (Input) -> Result<Bool, Downstream.Failure>) {
        self.answerIfFound = answerIfFound
        self.test = test
        self.name = name
        super.init(downstream: downstream)
    }

    override package var description: String { name }

    override package func accumulate(_ input: Input) -> ReduceStep<Downstream.Failure> {
        switch test(input) {
        case .success(false): return .continue
        case .success(true): found = true; return .finish
        case .failure(let error): return .fail(error)
        }
    }

    override package var result: Bool? { found ? answerIfFound : !answerIfFound }
}
