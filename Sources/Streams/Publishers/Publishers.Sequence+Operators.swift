// The operators Combine specialises on `Publishers.Sequence`: they apply the operation to the
// sequence itself when the operator is applied and publish the result — another
// `Publishers.Sequence`, or a `Just`, `Optional.Publisher`, `Result.Publisher` or `Empty`.
// So `[1, 2, 3].publisher.map { $0 * 2 }` is a `Publishers.Sequence<[Int], Never>`, as in
// Combine; the closures run at once (over the whole sequence), which is why they are not
// escaping. A sequence that never ends must not be given one of the eager operators.
//
// ```swift
// let evens: Publishers.Sequence<[Int], Never> = (1...6).publisher.filter { $0.isMultiple(of: 2) }
// ```

extension Publishers.Sequence where Failure == Never {
    /// The least element by `areInIncreasingOrder`; no value if the sequence is empty.
    @inlinable public func min(by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool) -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.min(by: areInIncreasingOrder))
    }

    /// The greatest element by `areInIncreasingOrder`; no value if the sequence is empty.
    @inlinable public func max(by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool) -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.max(by: areInIncreasingOrder))
    }

    /// The first element that satisfies `predicate`, if any.
    @inlinable public func first(where predicate: (Elements.Element) -> Bool) -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.first(where: predicate))
    }
}

extension Publishers.Sequence {
    /// Whether every element satisfies `predicate`.
    @inlinable public func allSatisfy(_ predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(sequence.allSatisfy(predicate))
    }

    /// Whether every element satisfies `predicate`, or the error it throws.
    @inlinable public func tryAllSatisfy(_ predicate: (Elements.Element) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try sequence.allSatisfy(predicate) })
    }

    /// Every element, in an array.
    @inlinable public func collect() -> Result<[Elements.Element], Failure>.Publisher {
        Result<[Elements.Element], Failure>.Publisher(Array(sequence))
    }

    /// The non-nil results of `transform`.
    @inlinable public func compactMap<T>(_ transform: (Elements.Element) -> T?) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.compactMapReserving(transform))
    }

    /// Whether some element satisfies `predicate`.
    @inlinable public func contains(where predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(sequence.contains(where: predicate))
    }

    /// Whether some element satisfies `predicate`, or the error it throws.
    @inlinable public func tryContains(where predicate: (Elements.Element) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try sequence.contains(where: predicate) })
    }

    /// The elements after those that satisfy `predicate`.
    @inlinable public func drop(while predicate: (Elements.Element) -> Bool) -> Publishers.Sequence<DropWhileSequence<Elements>, Failure> {
        Publishers.Sequence<DropWhileSequence<Elements>, Failure>(sequence: sequence.drop(while: predicate))
    }

    /// The elements after the first `count`.
    @inlinable public func dropFirst(_ count: Int = 1) -> Publishers.Sequence<DropFirstSequence<Elements>, Failure> {
        Publishers.Sequence<DropFirstSequence<Elements>, Failure>(sequence: sequence.dropFirst(count))
    }

    /// The elements that satisfy `isIncluded`.
    @inlinable public func filter(_ isIncluded: (Elements.Element) -> Bool) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.filterReserving(isIncluded))
    }

    /// A publisher that finishes without the elements.
    @inlinable public func ignoreOutput() -> Empty<Elements.Element, Failure> { Empty<Elements.Element, Failure>() }

    /// The transformed elements.
    @inlinable public func map<T>(_ transform: (Elements.Element) -> T) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.map(transform))
    }

    /// The first `maxLength` elements.
    @inlinable public func prefix(_ maxLength: Int) -> Publishers.Sequence<PrefixSequence<Elements>, Failure> {
        Publishers.Sequence<PrefixSequence<Elements>, Failure>(sequence: sequence.prefix(maxLength))
    }

    /// The elements before the first that does not satisfy `predicate`.
    @inlinable public func prefix(while predicate: (Elements.Element) -> Bool) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.prefix(while: predicate))
    }

    /// The elements folded into `initialResult`.
    @inlinable public func reduce<Accumulator>(
        _ initialResult: Accumulator, _ nextPartialResult: @escaping (Accumulator, Elements.Element) -> Accumulator
    ) -> Result<Accumulator, Failure>.Publisher {
        Result<Accumulator, Failure>.Publisher(sequence.reduce(initialResult, nextPartialResult))
    }

    /// The elements folded into `initialResult`, or the error the fold throws.
    @inlinable public func tryReduce<Accumulator>(
        _ initialResult: Accumulator, _ nextPartialResult: @escaping (Accumulator, Elements.Element) throws -> Accumulator
    ) -> Result<Accumulator, any Error>.Publisher {
        Result<Accumulator, any Error>.Publisher(Result { try sequence.reduce(initialResult, nextPartialResult) })
    }

    /// The elements with each `nil` replaced by `output`.
    @inlinable public func replaceNil<T>(with output: T) -> Publishers.Sequence<[Elements.Element], Failure> where Elements.Element == T? {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.map { $0 ?? output })
    }

    /// Every partial result of folding the elements into `initialResult`.
    @inlinable public func scan<T>(
        _ initialResult: T, _ nextPartialResult: @escaping (T, Elements.Element) -> T
    ) -> Publishers.Sequence<[T], Failure> {
        var partialResult = initialResult
        var partialResults: [T] = []
        partialResults.reserveCapacity(sequence.underestimatedCount)
        for element in sequence {
            partialResult = nextPartialResult(partialResult, element)
            partialResults.append(partialResult)
        }
        return Publishers.Sequence<[T], Failure>(sequence: partialResults)
    }

    /// The same elements, with another failure type.
    @inlinable public func setFailureType<E: Error>(to error: E.Type) -> Publishers.Sequence<Elements, E> {
        Publishers.Sequence<Elements, E>(sequence: sequence)
    }
}

extension Publishers.Sequence where Elements.Element: Equatable {
    /// The elements without consecutive repeats.
    @inlinable public func removeDuplicates() -> Publishers.Sequence<[Elements.Element], Failure> {
        var kept: [Elements.Element] = []
        for element in sequence where kept.last != element { kept.append(element) }
        return Publishers.Sequence<[Elements.Element], Failure>(sequence: kept)
    }

    /// Whether the sequence contains `output`.
    @inlinable public func contains(_ output: Elements.Element) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(sequence.contains(output))
    }
}

extension Publishers.Sequence where Failure == Never, Elements.Element: Comparable {
    /// The least element; no value if the sequence is empty.
    @inlinable public func min() -> Optional<Elements.Element>.Publisher { Optional<Elements.Element>.Publisher(sequence.min()) }

    /// The greatest element; no value if the sequence is empty.
    @inlinable public func max() -> Optional<Elements.Element>.Publisher { Optional<Elements.Element>.Publisher(sequence.max()) }
}

extension Publishers.Sequence where Elements: Collection, Failure == Never {
    /// The first element, if any.
    @inlinable public func first() -> Optional<Elements.Element>.Publisher { Optional<Elements.Element>.Publisher(sequence.first) }

    /// The element at `index`, if the collection has one there.
    @inlinable public func output(at index: Elements.Index) -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }
}

extension Publishers.Sequence where Elements: Collection {
    /// The number of elements.
    @inlinable public func count() -> Result<Int, Failure>.Publisher { Result<Int, Failure>.Publisher(sequence.count) }

    /// The elements at positions in `range`.
    @inlinable public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: Array(sequence[range]))
    }
}

extension Publishers.Sequence where Elements: BidirectionalCollection, Failure == Never {
    /// The last element, if any.
    @inlinable public func last() -> Optional<Elements.Element>.Publisher { Optional<Elements.Element>.Publisher(sequence.last) }

    /// The last element that satisfies `predicate`, if any.
    @inlinable public func last(where predicate: (Elements.Element) -> Bool) -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.last(where: predicate))
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection, Failure == Never {
    /// The element at `index`, if the collection has one there.
    @inlinable public func output(at index: Elements.Index) -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }

    /// The number of elements.
    @inlinable public func count() -> Just<Int> { Just(sequence.count) }
}

extension Publishers.Sequence where Elements: RandomAccessCollection {
    /// The elements at positions in `range`.
    @inlinable public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: Array(sequence[range]))
    }

    /// The number of elements.
    @inlinable public func count() -> Result<Int, Failure>.Publisher { Result<Int, Failure>.Publisher(sequence.count) }
}

extension Publishers.Sequence where Elements: RangeReplaceableCollection {
    /// `elements`, then the sequence's.
    @inlinable public func prepend(_ elements: Elements.Element...) -> Publishers.Sequence<Elements, Failure> { prepend(elements) }

    /// `elements`, then the sequence's.
    @inlinable public func prepend<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure> where S.Element == Elements.Element {
        var joined = Elements()
        joined.reserveCapacity(sequence.count + elements.underestimatedCount)
        joined.append(contentsOf: elements)
        joined.append(contentsOf: sequence)
        return Publishers.Sequence<Elements, Failure>(sequence: joined)
    }

    /// `publisher`'s elements, then the sequence's.
    @inlinable public func prepend(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        prepend(publisher.sequence)
    }

    /// The sequence's elements, then `elements`.
    @inlinable public func append(_ elements: Elements.Element...) -> Publishers.Sequence<Elements, Failure> { append(elements) }

    /// The sequence's elements, then `elements`.
    @inlinable public func append<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure> where S.Element == Elements.Element {
        var joined = sequence
        joined.append(contentsOf: elements)
        return Publishers.Sequence<Elements, Failure>(sequence: joined)
    }

    /// The sequence's elements, then `publisher`'s.
    @inlinable public func append(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        append(publisher.sequence)
    }
}
