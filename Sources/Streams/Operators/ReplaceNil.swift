extension Publisher {
    /// Replaces each `nil` value with `output` and unwraps the others.
    ///
    /// As in Combine, this is a ``Publishers/Map``: one value in, one value out.
    ///
    /// ```swift
    /// let cancellable = [1, nil, 3].publisher
    ///     .replaceNil(with: 0)
    ///     .sink { print($0) }   // 1, 0, 3
    /// ```
    public func replaceNil<T>(with output: T) -> Publishers.Map<Self, T> where Output == T? {
        Publishers.Map(upstream: self) { $0 ?? output }
    }
}
