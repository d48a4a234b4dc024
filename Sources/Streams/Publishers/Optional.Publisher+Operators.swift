// The operators Combine specialises on `Optional.Publisher`: at most one value, known when the
// operator is applied, so each returns another `Optional.Publisher` (or a `Just` or `Empty`).
// The closures run at once, which is why they are not escaping.
//
// ```swift
// let doubled: Optional<Int>.Publisher = Optional(21).publisher.map { $0 * 2 }
// ```

extension Optional.Publisher where Wrapped: Equatable {
    /// Whether the value equals `output`; no value if there is none.
    @inlinable public func contains(_ output: Output) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(self.output.map { $0 == output })
    }

    /// `self`: at most one value has no duplicates.
    @inlinable public func removeDuplicates() -> Optional<Wrapped>.Publisher { self }
}

extension Optional.Publisher where Wrapped: Comparable {
    /// `self`: at most one value.
    @inlinable public func min() -> Optional<Wrapped>.Publisher { self }

    /// `self`: at most one value.
    @inlinable public func max() -> Optional<Wrapped>.Publisher { self }
}

extension Optional.Publisher {
    /// Whether the value satisfies `predicate`; no value if there is none.
    @inlinable public func allSatisfy(_ predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }

    /// The value in an array, or an empty array if there is none (as Combine's: the empty
    /// publisher still finishes, and collect() always delivers its array).
    @inlinable public func collect() -> Optional<[Output]>.Publisher {
        Optional<[Output]>.Publisher(output.map { [$0] } ?? [])
    }

    /// The transformed value, if there is one and the transformation returns one.
    @inlinable public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.flatMap(transform))
    }

    /// `self`: at most one value.
    @inlinable public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher { self }

    /// `self`: at most one value.
    @inlinable public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher { self }

    /// Whether the value satisfies `predicate`; no value if there is none.
    @inlinable public func contains(where predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }

    /// One if there is a value; no value otherwise.
    @inlinable public func count() -> Optional<Int>.Publisher {
        Optional<Int>.Publisher(output.map { _ in 1 })
    }

    /// The value, unless `count` is positive.
    @inlinable public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        precondition(count >= 0, "dropFirst(\(count)): the count of values to drop cannot be negative")
        return Optional<Output>.Publisher(count > 0 ? nil : output)
    }

    /// The value, unless it satisfies `predicate`.
    @inlinable public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? nil : $0 })
    }

    /// `self`.
    @inlinable public func first() -> Optional<Output>.Publisher { self }

    /// The value, if it satisfies `predicate`.
    @inlinable public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher { filter(predicate) }

    /// `self`.
    @inlinable public func last() -> Optional<Output>.Publisher { self }

    /// The value, if it satisfies `predicate`.
    @inlinable public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher { filter(predicate) }

    /// The value, if it satisfies `isIncluded`.
    @inlinable public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { isIncluded($0) ? $0 : nil })
    }

    /// A publisher that finishes without the value.
    @inlinable public func ignoreOutput() -> Empty<Output, Never> { Empty<Output, Never>() }

    /// The transformed value, if there is one.
    @inlinable public func map<T>(_ transform: (Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map(transform))
    }

    /// The value if `index` is zero.
    @inlinable public func output(at index: Int) -> Optional<Output>.Publisher {
        precondition(index >= 0, "output(at: \(index)): a position cannot be negative")
        return Optional<Output>.Publisher(index == 0 ? output : nil)
    }

    /// The value if `range` contains zero.
    @inlinable public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        let positions = range.relative(to: 0..<Int.max)
        precondition(positions.lowerBound >= 0, "output(in: \(range)): a position cannot be negative")
        return Optional<Output>.Publisher(positions.contains(0) ? output : nil)
    }

    /// The value if `maxLength` is positive.
    @inlinable public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        precondition(maxLength >= 0, "prefix(\(maxLength)): the length cannot be negative")
        return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
    }

    /// The value, if it satisfies `predicate`.
    @inlinable public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher { filter(predicate) }

    /// The value folded into `initialResult`; no value if there is none.
    @inlinable public func reduce<Accumulator>(
        _ initialResult: Accumulator, _ nextPartialResult: (Accumulator, Output) -> Accumulator
    ) -> Optional<Accumulator>.Publisher {
        Optional<Accumulator>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }

    /// The value folded into `initialResult`; no value if there is none.
    @inlinable public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }

    /// `self`: at most one value has no duplicates.
    @inlinable public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Optional<Output>.Publisher { self }

    /// `self`: it never fails.
    @inlinable public func replaceError(with output: Output) -> Optional<Output>.Publisher { self }

    /// The value, or `output` if there is none.
    @inlinable public func replaceEmpty(with output: Output) -> Just<Output> { Just(self.output ?? output) }

    /// `self`: it never fails.
    @inlinable public func retry(_ retries: Int) -> Optional<Output>.Publisher { self }
}
