/// An error for tests that need one.
enum TestError: Error, Equatable {
    case boom
    case other
}
