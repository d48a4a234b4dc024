// The operators Combine specialises on `Just`: the answer is known when the operator is
// applied, so each returns the simplest publisher of it (`Just`, `Optional.Publisher`,
// `Result.Publisher`, `Empty` or `Publishers.Sequence`) instead of wrapping the `Just`. The
// closures run at once, which is why they are not escaping.
//
// ```swift
// let doubled: Just<Int> = Just(21).map { $0 * 2 }
// let none: Optional<Int>.Publisher = Just(1).filter { $0 > 1 }
// ```

extension Just where Output: Comparable {
    /// `self`: the only value is the least.
    @inlinable public func min() -> Just<Output> { self }

    /// `self`: the only value is the greatest.
    @inlinable public func max() -> Just<Output> { self }
}

extension Just where Output: Equatable {
    /// Whether the value equals `output`.
    @inlinable public func contains(_ output: Output) -> Just<Bool> { Just<Bool>(self.output == output) }

    /// `self`: a single value has no duplicates.
    @inlinable public func removeDuplicates() -> Just<Output> { self }
}

extension Just {
    /// Whether the value satisfies `predicate`.
    @inlinable public func allSatisfy(_ predicate: (Output) -> Bool) -> Just<Bool> { Just<Bool>(predicate(output)) }

    /// Whether the value satisfies `predicate`, or the error it throws.
    @inlinable public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try predicate(output) })
    }

    /// Whether the value satisfies `predicate`.
    @inlinable public func contains(where predicate: (Output) -> Bool) -> Just<Bool> { Just<Bool>(predicate(output)) }

    /// Whether the value satisfies `predicate`, or the error it throws.
    @inlinable public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try predicate(output) })
    }

    /// The value in an array.
    @inlinable public func collect() -> Just<[Output]> { Just<[Output]>([output]) }

    /// `self`: the only value is the least by any ordering.
    @inlinable public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> { self }

    /// `self`: the only value is the greatest by any ordering.
    @inlinable public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> { self }

    /// One.
    @inlinable public func count() -> Just<Int> { Just<Int>(1) }

    /// The value, unless `count` is positive.
    @inlinable public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        precondition(count >= 0, "dropFirst(\(count)): the count of values to drop cannot be negative")
        return Optional<Output>.Publisher(count > 0 ? nil : output)
    }

    /// The value, unless it satisfies `predicate`.
    @inlinable public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? nil : output)
    }

    /// `self`.
    @inlinable public func first() -> Just<Output> { self }

    /// The value, if it satisfies `predicate`.
    @inlinable public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }

    /// `self`.
    @inlinable public func last() -> Just<Output> { self }

    /// The value, if it satisfies `predicate`.
    @inlinable public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }

    /// A publisher that finishes without the value.
    @inlinable public func ignoreOutput() -> Empty<Output, Never> { Empty<Output, Never>() }

    /// The transformed value.
    @inlinable public func map<T>(_ transform: (Output) -> T) -> Just<T> { Just<T>(transform(output)) }

    /// The transformed value, or the error the transformation throws.
    @inlinable public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(Result { try transform(output) })
    }

    /// The transformed value, if the transformation returns one.
    @inlinable public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional<T>.Publisher(transform(output))
    }

    /// The value, if it satisfies `isIncluded`.
    @inlinable public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(isIncluded(output) ? output : nil)
    }

    /// The value if `index` is zero.
    @inlinable public func output(at index: Int) -> Optional<Output>.Publisher {
        precondition(index >= 0, "output(at: \(index)): a position cannot be negative")
        return Optional<Output>.Publisher(index == 0 ? output : nil)
    }

    /// The value if `range` starts at zero and is not empty. As Combine's, a range that starts
    /// below zero gives no value rather than stopping the program.
    @inlinable public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        let positions = range.relative(to: Int.min..<Int.max)
        return Optional<Output>.Publisher(positions.lowerBound == 0 && positions.contains(0) ? output : nil)
    }

    /// The value if `maxLength` is positive.
    @inlinable public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        precondition(maxLength >= 0, "prefix(\(maxLength)): the length cannot be negative")
        return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
    }

    /// The value, if it satisfies `predicate`.
    @inlinable public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }

    /// The value, with a failure type it never uses.
    @inlinable public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(output)
    }

    /// The value, with a failure type it never uses.
    @inlinable public func mapError<E: Error>(_ transform: (Never) -> E) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(output)
    }

    /// `self`: a single value has no duplicates.
    @inlinable public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Just<Output> { self }

    /// The value (a single value has no duplicates), or the error the predicate throws.
    @inlinable public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool) -> Result<Output, any Error>.Publisher {
        // As Combine's: the predicate runs once, comparing the value with itself.
        Result<Output, any Error>.Publisher(Result { _ = try predicate(output, output); return output })
    }

    /// `self`: a `Just` never fails.
    @inlinable public func replaceError(with output: Output) -> Just<Output> { self }

    /// `self`: a `Just` is never empty.
    @inlinable public func replaceEmpty(with output: Output) -> Just<Output> { self }

    /// `self`: a `Just` never fails.
    @inlinable public func retry(_ retries: Int) -> Just<Output> { self }

    /// The value folded into `initialResult`.
    @inlinable public func reduce<Accumulator>(
        _ initialResult: Accumulator, _ nextPartialResult: (Accumulator, Output) -> Accumulator
    ) -> Result<Accumulator, Never>.Publisher {
        Result<Accumulator, Never>.Publisher(nextPartialResult(initialResult, output))
    }

    /// The value folded into `initialResult`, or the error the fold throws.
    @inlinable public func tryReduce<Accumulator>(
        _ initialResult: Accumulator, _ nextPartialResult: (Accumulator, Output) throws -> Accumulator
    ) -> Result<Accumulator, any Error>.Publisher {
        Result<Accumulator, any Error>.Publisher(Result { try nextPartialResult(initialResult, output) })
    }

    /// The value folded into `initialResult`.
    @inlinable public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Never>.Publisher {
        Result<T, Never>.Publisher(nextPartialResult(initialResult, output))
    }

    /// The value folded into `initialResult`, or the error the fold throws.
    @inlinable public func tryScan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(Result { try nextPartialResult(initialResult, output) })
    }

    /// `elements`, then the value.
    @inlinable public func prepend(_ elements: Output...) -> Publishers.Sequence<[Output], Never> { prepend(elements) }

    /// `elements`, then the value.
    @inlinable public func prepend<S: Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Never> where S.Element == Output {
        var joined: [Output] = []
        joined.reserveCapacity(elements.underestimatedCount + 1)
        joined.append(contentsOf: elements)
        joined.append(output)
        return Publishers.Sequence(sequence: joined)
    }

    /// The value, then `elements`.
    @inlinable public func append(_ elements: Output...) -> Publishers.Sequence<[Output], Never> { append(elements) }

    /// The value, then `elements`.
    @inlinable public func append<S: Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Never> where S.Element == Output {
        Publishers.Sequence(sequence: [output] + elements)
    }
}
