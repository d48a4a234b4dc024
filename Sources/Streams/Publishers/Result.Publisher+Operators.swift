// The operators Combine specialises on `Result.Publisher`: one value or one failure, known when
// the operator is applied, so each returns another `Result.Publisher` (or `Empty`). The
// closures run at once, which is why they are not escaping.
//
// ```swift
// let doubled: Result<Int, Never>.Publisher = Result<Int, Never>.Publisher(21).map { $0 * 2 }
// ```

extension Result.Publisher where Output: Equatable {
    /// Whether the value equals `output`, or the failure.
    @inlinable public func contains(_ output: Output) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map { $0 == output })
    }

    /// `self`: one value has no duplicates.
    @inlinable public func removeDuplicates() -> Result<Output, Failure>.Publisher { self }
}

extension Result.Publisher where Output: Comparable {
    /// `self`: one value.
    @inlinable public func min() -> Result<Output, Failure>.Publisher { self }

    /// `self`: one value.
    @inlinable public func max() -> Result<Output, Failure>.Publisher { self }
}

extension Result.Publisher where Failure == Never {
    /// The value, with a failure type it never uses.
    @inlinable public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
        switch result {
        case .success(let value): Result<Output, E>.Publisher(value)
        }
    }
}

extension Result.Publisher {
    /// Whether the value satisfies `predicate`, or the failure.
    @inlinable public func allSatisfy(_ predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Whether the value satisfies `predicate`, or the failure or the error it throws.
    @inlinable public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(tryApplying(predicate))
    }

    /// Whether the value satisfies `predicate`, or the failure.
    @inlinable public func contains(where predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Whether the value satisfies `predicate`, or the failure or the error it throws.
    @inlinable public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(tryApplying(predicate))
    }

    /// The value in an array, or the failure.
    @inlinable public func collect() -> Result<[Output], Failure>.Publisher {
        Result<[Output], Failure>.Publisher(result.map { [$0] })
    }

    /// `self`: one value.
    @inlinable public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher { self }

    /// The value or the failure. As Combine's, the ordering runs once, comparing the value with
    /// itself, and an error it throws is the failure.
    @inlinable public func tryMin(by areInIncreasingOrder: (Output, Output) throws -> Bool) -> Result<Output, any Error>.Publisher {
        Result<Output, any Error>.Publisher(checkingValue(with: areInIncreasingOrder))
    }

    /// `self`: one value.
    @inlinable public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher { self }

    /// The value or the failure; as for ``tryMin(by:)``, the ordering runs once.
    @inlinable public func tryMax(by areInIncreasingOrder: (Output, Output) throws -> Bool) -> Result<Output, any Error>.Publisher {
        Result<Output, any Error>.Publisher(checkingValue(with: areInIncreasingOrder))
    }

    /// One, or the failure.
    @inlinable public func count() -> Result<Int, Failure>.Publisher {
        Result<Int, Failure>.Publisher(result.map { _ in 1 })
    }

    /// `self`.
    @inlinable public func first() -> Result<Output, Failure>.Publisher { self }

    /// `self`.
    @inlinable public func last() -> Result<Output, Failure>.Publisher { self }

    /// A publisher that finishes without the value, or fails with the failure.
    @inlinable public func ignoreOutput() -> Empty<Output, Failure> { Empty<Output, Failure>() }

    /// The transformed value, or the failure.
    @inlinable public func map<T>(_ transform: (Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map(transform))
    }

    /// The transformed value, or the failure or the error the transformation throws.
    @inlinable public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(tryApplying(transform))
    }

    /// The value, or the transformed failure.
    @inlinable public func mapError<E: Error>(_ transform: (Failure) -> E) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(result.mapError(transform))
    }

    /// `self`: one value has no duplicates.
    @inlinable public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher { self }

    /// The value or the failure. As Combine's, the predicate runs once, comparing the value
    /// with itself, and an error it throws is the failure.
    @inlinable public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool) -> Result<Output, any Error>.Publisher {
        Result<Output, any Error>.Publisher(checkingValue(with: predicate))
    }

    /// The value, once `check` has compared it with itself without throwing; the failure, or
    /// the error `check` threw.
    @inlinable func checkingValue(with check: (Output, Output) throws -> Bool) -> Result<Output, any Error> {
        switch result {
        case .success(let value):
            do {
                _ = try check(value, value)
                return .success(value)
            } catch {
                return .failure(error)
            }
        case .failure(let error):
            return .failure(error)
        }
    }

    /// The value, or `output` in place of the failure.
    @inlinable public func replaceError(with output: Output) -> Result<Output, Never>.Publisher {
        switch result {
        case .success(let value): Result<Output, Never>.Publisher(value)
        case .failure: Result<Output, Never>.Publisher(output)
        }
    }

    /// `self`: it is never empty.
    @inlinable public func replaceEmpty(with output: Output) -> Result<Output, Failure>.Publisher { self }

    /// `self`: subscribing again gives the same result.
    @inlinable public func retry(_ retries: Int) -> Result<Output, Failure>.Publisher { self }

    /// The value folded into `initialResult`, or the failure.
    @inlinable public func reduce<Accumulator>(
        _ initialResult: Accumulator, _ nextPartialResult: (Accumulator, Output) -> Accumulator
    ) -> Result<Accumulator, Failure>.Publisher {
        Result<Accumulator, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// The value folded into `initialResult`, or the failure or the error the fold throws.
    @inlinable public func tryReduce<Accumulator>(
        _ initialResult: Accumulator, _ nextPartialResult: (Accumulator, Output) throws -> Accumulator
    ) -> Result<Accumulator, any Error>.Publisher {
        Result<Accumulator, any Error>.Publisher(tryApplying { try nextPartialResult(initialResult, $0) })
    }

    /// The value folded into `initialResult`, or the failure.
    @inlinable public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// The value folded into `initialResult`, or the failure or the error the fold throws.
    @inlinable public func tryScan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(tryApplying { try nextPartialResult(initialResult, $0) })
    }

    // The failure, or `body` applied to the value with what it throws caught.
    @usableFromInline func tryApplying<T>(_ body: (Output) throws -> T) -> Result<T, any Error> {
        switch result {
        case .success(let value): Result<T, any Error> { try body(value) }
        case .failure(let error): .failure(error)
        }
    }
}
