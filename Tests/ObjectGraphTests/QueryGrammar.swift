import Foundation
@testable import ObjectGraph

/// A small grammar of `#Predicate`s over ``QueryItem``, built at run time from a seeded
/// generator: comparisons of every attribute with edge values, optionals through `==`, `??` and
/// `flatMap`, lists, ranges, string tests, the to-one and to-many relationships, a forced
/// unwrap, arithmetic on stored and captured numbers (with overflows and divisions by zero,
/// which fail both paths alike), and `&&`, `||`, `!` over them.
struct QueryGrammar {
    typealias Expression = any StandardPredicateExpression<Bool>
    typealias Item = PredicateExpressions.Variable<QueryItem>

    var generator: SeededGenerator
    /// The strings compared with (those the store can hold).
    var strings = QueryModel.strings

    /// A predicate and its description.
    mutating func predicate() -> (Predicate<QueryItem>, String) {
        var description = ""
        var grammar = self
        let predicate = Predicate<QueryItem> { item in
            let (expression, text) = grammar.expression(item, depth: 0)
            description = text
            return expression
        }
        self = grammar
        return (predicate, description)
    }

    /// Sort descriptors over the sortable attributes, and their description.
    mutating func sortDescriptors() -> ([SortDescriptor<QueryItem>], String) {
        let count = Int.random(in: 0...2, using: &generator)
        var descriptors: [SortDescriptor<QueryItem>] = []
        var names: [String] = []
        for _ in 0..<count {
            let order: SortOrder = Bool.random(using: &generator) ? .forward : .reverse
            switch Int.random(in: 0..<9, using: &generator) {
            case 0: descriptors.append(SortDescriptor(\QueryItem.int, order: order)); names.append("int")
            case 1: descriptors.append(SortDescriptor(\QueryItem.optionalInt, order: order)); names.append("optionalInt")
            case 2: descriptors.append(SortDescriptor(\QueryItem.double, order: order)); names.append("double")
            case 3: descriptors.append(SortDescriptor(\QueryItem.optionalDouble, order: order)); names.append("optionalDouble")
            case 4: descriptors.append(SortDescriptor(\QueryItem.string, order: order)); names.append("string")
            case 5: descriptors.append(SortDescriptor(\QueryItem.optionalString, order: order)); names.append("optionalString")
            case 6: descriptors.append(SortDescriptor(\QueryItem.date, order: order)); names.append("date")
            case 7: descriptors.append(SortDescriptor(\QueryItem.string, comparator: .lexical, order: order)); names.append("string lexical")
            default: descriptors.append(SortDescriptor(\QueryItem.uuid, order: order)); names.append("uuid")
            }
            names[names.count - 1] += order == .reverse ? " desc" : ""
        }
        return (descriptors, names.joined(separator: ", "))
    }

    // MARK: Expressions

    private mutating func expression(_ item: Item, depth: Int) -> (Expression, String) {
        let choice = depth >= 3 ? 0 : Int.random(in: 0..<10, using: &generator)
        switch choice {
        case 7:
            let (lhs, l) = expression(item, depth: depth + 1)
            let (rhs, r) = expression(item, depth: depth + 1)
            return (and(lhs, rhs), "(\(l) && \(r))")
        case 8:
            let (lhs, l) = expression(item, depth: depth + 1)
            let (rhs, r) = expression(item, depth: depth + 1)
            return (or(lhs, rhs), "(\(l) || \(r))")
        case 9:
            let (inner, text) = expression(item, depth: depth + 1)
            return (not(inner), "!\(text)")
        default:
            return leaf(item)
        }
    }

    private func and<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R) -> Expression {
        PredicateExpressions.Conjunction(lhs: lhs, rhs: rhs)
    }

    private func or<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R) -> Expression {
        PredicateExpressions.Disjunction(lhs: lhs, rhs: rhs)
    }

    private func not<W: StandardPredicateExpression<Bool>>(_ wrapped: W) -> Expression {
        PredicateExpressions.Negation(wrapped)
    }

    private mutating func pick<T>(_ values: [T]) -> T { values.randomElement(using: &generator)! }

    private mutating func leaf(_ item: Item) -> (Expression, String) {
        switch Int.random(in: 0..<25, using: &generator) {
        case 0: return compare(item, \.int, "int", pick(QueryModel.ints))
        case 1: return compare(item, \.double, "double", pick(QueryModel.doubles))
        case 2: return compare(item, \.string, "string", pick(strings))
        case 3: return compare(item, \.date, "date", pick(QueryModel.dates))
        case 4: return compare(item, \.uuid, "uuid", pick(QueryModel.uuids))
        case 5: return equality(item, \.optionalInt, "optionalInt", Bool.random(using: &generator) ? nil : pick(QueryModel.ints))
        case 6: return equality(item, \.optionalDouble, "optionalDouble", Bool.random(using: &generator) ? nil : pick(QueryModel.doubles))
        case 7: return equality(item, \.optionalString, "optionalString", Bool.random(using: &generator) ? nil : pick(strings))
        case 8: return equality(item, \.optionalFlag, "optionalFlag", [nil, true, false][Int.random(in: 0..<3, using: &generator)])
        case 9:
            let flag = PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.flag)
            return (flag, "flag")
        case 10:
            // `(optional ?? fallback) op c`
            let fallback = pick(QueryModel.doubles)
            let value = pick(QueryModel.doubles)
            let coalesced = PredicateExpressions.NilCoalesce(lhs: PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.optionalDouble), rhs: PredicateExpressions.Value(fallback))
            let (op, symbol) = comparisonOperator()
            return (PredicateExpressions.Comparison(lhs: coalesced, rhs: PredicateExpressions.Value(value), op: op), "(optionalDouble ?? \(fallback)) \(symbol) \(value)")
        case 11:
            // `optional.flatMap { $0 op c } == true/false/nil`
            let value = pick(QueryModel.ints)
            let (op, symbol) = comparisonOperator()
            let mapped = PredicateExpressions.OptionalFlatMap(PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.optionalInt)) { wrapped in
                PredicateExpressions.Comparison(lhs: wrapped, rhs: PredicateExpressions.Value(value), op: op)
            }
            let expected: Bool? = [nil, true, false][Int.random(in: 0..<3, using: &generator)]
            return (PredicateExpressions.Equal(lhs: mapped, rhs: PredicateExpressions.Value(expected)), "optionalInt.flatMap { $0 \(symbol) \(value) } == \(String(describing: expected))")
        case 12:
            let values = (0..<Int.random(in: 0...3, using: &generator)).map { _ in pick(strings) }
            return (PredicateExpressions.SequenceContains(sequence: PredicateExpressions.Value(values), element: PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.string)), "\(values).contains(string)")
        case 13:
            let values = (0..<Int.random(in: 0...3, using: &generator)).map { _ in pick(QueryModel.doubles) }
            return (PredicateExpressions.SequenceContains(sequence: PredicateExpressions.Value(values), element: PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.double)), "\(values).contains(double)")
        case 14:
            let values: [Int?] = (0..<Int.random(in: 0...3, using: &generator)).map { _ in Bool.random(using: &generator) ? nil : pick(QueryModel.ints) }
            return (PredicateExpressions.SequenceContains(sequence: PredicateExpressions.Value(values), element: PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.optionalInt)), "\(values).contains(optionalInt)")
        case 15:
            let bounds = [pick(QueryModel.ints), pick(QueryModel.ints)].sorted()
            let range = PredicateExpressions.ClosedRange(lower: PredicateExpressions.Value(bounds[0]), upper: PredicateExpressions.Value(bounds[1]))
            return (PredicateExpressions.RangeExpressionContains(range: range, element: PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.int)), "(\(bounds[0])...\(bounds[1])).contains(int)")
        case 16:
            let finite = QueryModel.doubles.filter { !$0.isNaN }
            let bounds = [pick(finite), pick(finite)].sorted()
            return (PredicateExpressions.RangeExpressionContains(range: PredicateExpressions.Value(bounds[0]..<bounds[1]), element: PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.double)), "(\(bounds[0])..<\(bounds[1])).contains(double)")
        case 17:
            let needle = pick(strings)
            let base = PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.string)
            if Bool.random(using: &generator) {
                return (PredicateExpressions.CollectionContainsCollection(base: base, other: PredicateExpressions.Value(needle)), "string.contains(\(needle.debugDescription))")
            }
            return (PredicateExpressions.SequenceStartsWith(base: base, prefix: PredicateExpressions.Value(needle)), "string.starts(with: \(needle.debugDescription))")
        case 18:
            // `group?.name == c` or `group == nil`
            let group = PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.group)
            if Int.random(in: 0..<4, using: &generator) == 0 {
                return (PredicateExpressions.Equal(lhs: group, rhs: PredicateExpressions.NilLiteral()), "group == nil")
            }
            let name: String? = Int.random(in: 0..<5, using: &generator) == 0 ? nil : pick(QueryModel.groupNames)
            let groupName = PredicateExpressions.OptionalFlatMap(group) { PredicateExpressions.KeyPath(root: $0, keyPath: \QueryGroup.name) }
            return (PredicateExpressions.Equal(lhs: groupName, rhs: PredicateExpressions.Value(name)), "group?.name == \(name.debugDescription)")
        case 19:
            let group = PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.group)
            let size = pick(QueryModel.ints)
            let groupSize = PredicateExpressions.OptionalFlatMap(group) { PredicateExpressions.KeyPath(root: $0, keyPath: \QueryGroup.size) }
            let coalesced = PredicateExpressions.NilCoalesce(lhs: groupSize, rhs: PredicateExpressions.Value(0))
            return (PredicateExpressions.Comparison(lhs: coalesced, rhs: PredicateExpressions.Value(size), op: .greaterThan), "(group?.size ?? 0) > \(size)")
        case 20:
            let tags = PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.tags)
            if Bool.random(using: &generator) {
                return (PredicateExpressions.KeyPath(root: tags, keyPath: \Set<QueryTag>.isEmpty), "tags.isEmpty")
            }
            let label = pick(QueryModel.labels)
            let test = PredicateExpressions.SequenceContainsWhere(tags) { tag in
                PredicateExpressions.Equal(lhs: PredicateExpressions.KeyPath(root: tag, keyPath: \QueryTag.label), rhs: PredicateExpressions.Value(label))
            }
            return (test, "tags.contains { $0.label == \(label.debugDescription) }")
        case 21:
            return arithmetic(item)
        case 22:
            // May throw: a forced unwrap.
            let value = pick(QueryModel.ints)
            let unwrapped = PredicateExpressions.ForcedUnwrap(PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.optionalInt))
            return (PredicateExpressions.Comparison(lhs: unwrapped, rhs: PredicateExpressions.Value(value), op: .greaterThanOrEqual), "optionalInt! >= \(value)")
        case 23:
            return notes(item)
        default:
            // Two columns compared.
            let (op, symbol) = comparisonOperator()
            return (PredicateExpressions.Comparison(
                lhs: PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.double),
                rhs: PredicateExpressions.NilCoalesce(lhs: PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.optionalDouble), rhs: PredicateExpressions.Value(0.0)),
                op: op), "double \(symbol) (optionalDouble ?? 0)")
        }
    }

    /// Arithmetic on stored and captured integers and doubles, compared with a value: `+ - *`
    /// that may overflow, `/` and `%` by values that may be zero or -1, negation of `Int.min`,
    /// and captured-only parts worked out before the query (or, when they trap, left to memory).
    private mutating func arithmetic(_ item: Item) -> (Expression, String) {
        let int = PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.int)
        let groupSize = PredicateExpressions.NilCoalesce(
            lhs: PredicateExpressions.OptionalFlatMap(PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.optionalInt)) { $0 },
            rhs: PredicateExpressions.Value(1))
        let a = pick(QueryModel.ints)
        let b = pick(QueryModel.ints + [10, -10])
        let value = pick(QueryModel.ints + [0, 1, -1])
        let (op, symbol) = comparisonOperator()
        func compared<E: StandardPredicateExpression<Int>>(_ expression: E, _ text: String) -> (Expression, String) {
            (PredicateExpressions.Comparison(lhs: expression, rhs: PredicateExpressions.Value(value), op: op), "\(text) \(symbol) \(value)")
        }
        switch Int.random(in: 0..<10, using: &generator) {
        case 0:
            let operation: (PredicateExpressions.ArithmeticOperator, String) = [(.add, "+"), (.subtract, "-"), (.multiply, "*")][Int.random(in: 0..<3, using: &generator)]
            if Bool.random(using: &generator) {
                return compared(PredicateExpressions.Arithmetic(lhs: int, rhs: PredicateExpressions.Value(a), op: operation.0), "int \(operation.1) \(a)")
            }
            return compared(PredicateExpressions.Arithmetic(lhs: PredicateExpressions.Value(a), rhs: int, op: operation.0), "\(a) \(operation.1) int")
        case 1: return compared(PredicateExpressions.IntDivision(lhs: int, rhs: PredicateExpressions.Value(b)), "int / \(b)")
        case 2: return compared(PredicateExpressions.IntRemainder(lhs: int, rhs: PredicateExpressions.Value(b)), "int % \(b)")
        case 3: return compared(PredicateExpressions.IntDivision(lhs: PredicateExpressions.Value(a), rhs: int), "\(a) / int")
        case 4: return compared(PredicateExpressions.IntRemainder(lhs: int, rhs: groupSize), "int % (optionalInt ?? 1)")
        case 5: return compared(PredicateExpressions.UnaryMinus(int), "-int")
        case 6:
            // Captured only: worked out before the query, or left to memory where it traps.
            let folded = PredicateExpressions.Arithmetic(lhs: PredicateExpressions.IntDivision(lhs: PredicateExpressions.Value(a), rhs: PredicateExpressions.Value(b)), rhs: PredicateExpressions.Value(1), op: .add)
            return (PredicateExpressions.Comparison(lhs: int, rhs: folded, op: op), "int \(symbol) \(a) / \(b) + 1")
        case 7:
            let product = PredicateExpressions.Arithmetic(lhs: PredicateExpressions.Value(a), rhs: PredicateExpressions.Value(b), op: .multiply)
            return compared(PredicateExpressions.Arithmetic(lhs: int, rhs: product, op: .subtract), "int - \(a) * \(b)")
        case 8:
            let c = pick(QueryModel.doubles)
            let d = pick(QueryModel.doubles)
            let double = PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.double)
            let expression: any StandardPredicateExpression<Double> = Bool.random(using: &generator)
                ? PredicateExpressions.Arithmetic(lhs: double, rhs: PredicateExpressions.Value(c), op: .multiply)
                : PredicateExpressions.FloatDivision(lhs: double, rhs: PredicateExpressions.Value(c))
            func comparedDouble<E: StandardPredicateExpression<Double>>(_ e: E) -> Expression {
                PredicateExpressions.Comparison(lhs: e, rhs: PredicateExpressions.Value(d), op: op)
            }
            return (comparedDouble(expression), "double (* or /) \(c) \(symbol) \(d)")
        default:
            // A conjunction where a trap can hide behind a test that comes first.
            let guarded = PredicateExpressions.Conjunction(
                lhs: PredicateExpressions.NotEqual(lhs: int, rhs: PredicateExpressions.Value(0)),
                rhs: PredicateExpressions.Comparison(lhs: PredicateExpressions.IntDivision(lhs: PredicateExpressions.Value(a), rhs: int), rhs: PredicateExpressions.Value(value), op: op))
            return (guarded, "int != 0 && \(a) / int \(symbol) \(value)")
        }
    }

    /// `isEmpty`, `contains(where:)` and `count` comparisons over the ordered `notes`.
    private mutating func notes(_ item: Item) -> (Expression, String) {
        let notes = PredicateExpressions.KeyPath(root: item, keyPath: \QueryItem.notes)
        switch Int.random(in: 0..<4, using: &generator) {
        case 0:
            return (PredicateExpressions.KeyPath(root: notes, keyPath: \[QueryNote].isEmpty), "notes.isEmpty")
        case 1:
            let (op, symbol) = comparisonOperator()
            let count = Int.random(in: 0...4, using: &generator)
            let noteCount = PredicateExpressions.KeyPath(root: notes, keyPath: \[QueryNote].count)
            return (PredicateExpressions.Comparison(lhs: noteCount, rhs: PredicateExpressions.Value(count), op: op), "notes.count \(symbol) \(count)")
        case 2:
            let text = pick(QueryModel.noteTexts)
            let test = PredicateExpressions.SequenceContainsWhere(notes) { note in
                PredicateExpressions.Equal(lhs: PredicateExpressions.KeyPath(root: note, keyPath: \QueryNote.text), rhs: PredicateExpressions.Value(text))
            }
            return (test, "notes.contains { $0.text == \(text.debugDescription) }")
        default:
            let (op, symbol) = comparisonOperator()
            let weight = pick(QueryModel.ints)
            let test = PredicateExpressions.SequenceContainsWhere(notes) { note in
                PredicateExpressions.Comparison(lhs: PredicateExpressions.KeyPath(root: note, keyPath: \QueryNote.weight), rhs: PredicateExpressions.Value(weight), op: op)
            }
            return (test, "notes.contains { $0.weight \(symbol) \(weight) }")
        }
    }

    private mutating func comparisonOperator() -> (PredicateExpressions.ComparisonOperator, String) {
        [(.lessThan, "<"), (.lessThanOrEqual, "<="), (.greaterThan, ">"), (.greaterThanOrEqual, ">=")][Int.random(in: 0..<4, using: &generator)]
    }

    private mutating func compare<T: Comparable & Codable & Sendable>(_ item: Item, _ keyPath: KeyPath<QueryItem, T> & Sendable, _ name: String, _ value: T) -> (Expression, String) {
        // Foundation's Date.description traps on NaN.
        let value = value
        let described = (value as? Date).map { "Date(\($0.timeIntervalSinceReferenceDate))" } ?? "\(value)"
        let property = PredicateExpressions.KeyPath(root: item, keyPath: keyPath)
        let constant = PredicateExpressions.Value(value)
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: return (PredicateExpressions.Equal(lhs: property, rhs: constant), "\(name) == \(described)")
        case 1: return (PredicateExpressions.NotEqual(lhs: property, rhs: constant), "\(name) != \(described)")
        default:
            let (op, symbol) = comparisonOperator()
            // Now and then the constant comes first.
            if Bool.random(using: &generator) {
                return (PredicateExpressions.Comparison(lhs: constant, rhs: property, op: op), "\(described) \(symbol) \(name)")
            }
            return (PredicateExpressions.Comparison(lhs: property, rhs: constant, op: op), "\(name) \(symbol) \(described)")
        }
    }

    private mutating func equality<T: Equatable & Codable & Sendable>(_ item: Item, _ keyPath: KeyPath<QueryItem, T?> & Sendable, _ name: String, _ value: T?) -> (Expression, String) {
        let property = PredicateExpressions.KeyPath(root: item, keyPath: keyPath)
        if Bool.random(using: &generator) {
            return (PredicateExpressions.Equal(lhs: property, rhs: PredicateExpressions.Value(value)), "\(name) == \(String(describing: value))")
        }
        return (PredicateExpressions.NotEqual(lhs: property, rhs: PredicateExpressions.Value(value)), "\(name) != \(String(describing: value))")
    }
}
