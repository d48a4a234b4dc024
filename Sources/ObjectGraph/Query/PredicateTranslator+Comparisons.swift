import Foundation

// Comparisons, membership and ranges, string tests, type checks, and the operations on
// captured numbers that are worked out before the query.
extension PredicateTranslator {
    /// The longest captured list written with a placeholder per value (SQLite allows 32,766
    /// placeholders a statement).
    static let longestPlaceholderList = 10_000

    /// `lhs == rhs` (or `!=`).
    func equality(_ lhs: QueryTerm, _ rhs: QueryTerm, negated: Bool) throws(Untranslatable) -> QueryTerm {
        let equal: QueryCondition
        switch (lhs, rhs) {
        case (.optionalRow(let row), .nilLiteral), (.nilLiteral, .optionalRow(let row)):
            equal = .not(.exists(row))
        case (.row, .nilLiteral), (.nilLiteral, .row):
            equal = .constant(false)
        case (.row(let row), .object(let id)), (.object(let id), .row(let row)),
             (.optionalRow(let row), .object(let id)), (.object(let id), .optionalRow(let row)):
            guard let id, id.entity.isKind(of: row.entity) || row.entity.isKind(of: id.entity) else {
                equal = .constant(false)  // an object outside the context, or of another entity
                break
            }
            equal = .compare(.key(row), .equal, .constant(.object(id), .object(row.entity)))
        case (.value(let value), .nilLiteral), (.nilLiteral, .value(let value)):
            equal = value.isOptional ? .isNil(value) : .constant(false)
        case (.nilLiteral, .nilLiteral):
            equal = .constant(true)
        default:
            let left = try value(of: lhs)
            let right = try value(of: rhs)
            guard left.type == right.type else { throw Untranslatable(reason: "values of different stored types") }
            // `x.flatMap { f($0) } == c` with c not nil is `x != nil && f(x) == c`: no CASE, so
            // an index on x can serve.
            if case let .unlessNil(isNil, inner) = left, case .constant(let constant, _) = right, constant != .null {
                equal = .not(isNil) && .compare(inner, .equal, right)
            } else if case let .unlessNil(isNil, inner) = right, case .constant(let constant, _) = left, constant != .null {
                equal = .not(isNil) && .compare(left, .equal, inner)
            } else {
                return .condition(.compare(left, negated ? .notEqual : .equal, right))
            }
        }
        if negated, case .not(let inner) = equal { return .condition(inner) }
        return .condition(negated ? .not(equal) : equal)
    }

    /// `lhs < rhs` and the other orderings.
    func ordering(_ lhs: QueryTerm, _ op: QueryComparison, _ rhs: QueryTerm) throws(Untranslatable) -> QueryTerm {
        let left = try value(of: lhs)
        let right = try value(of: rhs)
        guard left.type == right.type, left.type != .data, left.type != .bool, left.ordersAsStored, right.ordersAsStored else {
            throw Untranslatable(reason: "an ordering of values that SQL does not order as Swift does")
        }
        return .condition(.compare(left, op, right))
    }

    /// `sequence.contains(element)`.
    mutating func contains(_ sequence: QueryTerm, _ element: QueryTerm) throws(Untranslatable) -> QueryTerm {
        switch (sequence, element) {
        case (.list(let values, let hasNil), .value(let value)):
            // Beyond what placeholders can carry, only what JSON carries goes to SQL.
            guard values.count <= Self.longestPlaceholderList || SQLQueryRenderer.jsonArray(of: values) != nil else {
                throw Untranslatable(reason: "a captured list of \(values.count) values of a type JSON cannot carry")
            }
            var condition = QueryCondition.isIn(value, values)
            if hasNil, value.isOptional { condition = condition || .isNil(value) }
            return .condition(condition)
        case (.rows(let toMany), .object(let id)):
            guard let id, id.entity.isKind(of: toMany.destination) else { return .condition(.constant(false)) }
            return .condition(anyTarget(toMany) { target in
                .compare(.key(target), .equal, .constant(.object(id), .object(toMany.destination)))
            })
        default:
            throw Untranslatable(reason: "contains on a sequence that is not a captured list or a to-many relationship")
        }
    }

    /// `range.contains(element)`.
    func rangeContains(_ range: QueryTerm, _ element: QueryTerm) throws(Untranslatable) -> QueryTerm {
        guard case let .range(lower, upper, closed) = range else { throw Untranslatable(reason: "a range that is not a stored type") }
        let value = try value(of: element)
        var parts: [QueryCondition] = []
        if let lower { parts.append(.compare(value, .greaterOrEqual, lower)) }
        if let upper { parts.append(.compare(value, closed ? .lessOrEqual : .less, upper)) }
        for bound in [lower, upper].compactMap({ $0 }) where bound.type != value.type {
            throw Untranslatable(reason: "range bounds of another stored type")
        }
        return .condition(parts.count == 1 ? parts[0] : .and(parts))
    }

    /// `base.contains(argument)` or `base.starts(with: argument)` on strings.
    func stringTest(_ test: QueryStringTest, _ base: QueryTerm, _ argument: QueryTerm) throws(Untranslatable) -> QueryTerm {
        let base = try value(of: base)
        let argument = try value(of: argument)
        guard base.type == .string, argument.type == .string, !base.isOptional, !argument.isOptional else {
            throw Untranslatable(reason: "\(test.rawValue) on values that are not strings")
        }
        return .condition(.string(test, base, argument))
    }

    /// `-value` of a captured number, worked out now; nothing else is negated in SQL.
    func negate(_ term: QueryTerm) throws(Untranslatable) -> QueryTerm {
        switch term {
        case .value(.constant(.integer(let int), .integer)):
            let (negated, overflow) = Int64(0).subtractingReportingOverflow(int)
            guard !overflow else { throw Untranslatable(reason: "negation of a number that overflows") }
            return .value(.constant(.integer(negated), .integer))
        case .value(.constant(.double(let double), .double)):
            return .value(.constant(.double(-double), .double))
        case .value(.constant(.string(let text), .decimal)):
            // Exact: a Decimal's negation never overflows.
            guard let decimal = DecimalText.decode(text) else { throw Untranslatable(reason: "a Decimal constant that does not decode") }
            return .value(.constant(.string(DecimalText.encode(-decimal)), .decimal))
        default:
            throw Untranslatable(reason: "negation of a number, which traps on overflow in Swift")
        }
    }

    /// `lhs op rhs` on captured numbers, worked out now (as Swift does, trapping aside); sums
    /// that involve a stored value stay in memory, where overflow traps as it would.
    func arithmetic(_ lhs: QueryTerm, _ rhs: QueryTerm, _ op: PredicateExpressions.ArithmeticOperator) throws(Untranslatable) -> QueryTerm {
        switch (lhs, rhs) {
        case let (.value(.constant(.integer(a), .integer)), .value(.constant(.integer(b), .integer))):
            let (result, overflow) = switch op {
            case .add: a.addingReportingOverflow(b)
            case .subtract: a.subtractingReportingOverflow(b)
            case .multiply: a.multipliedReportingOverflow(by: b)
            }
            guard !overflow else { throw Untranslatable(reason: "arithmetic that overflows") }
            return .value(.constant(.integer(result), .integer))
        case let (.value(.constant(.double(a), .double)), .value(.constant(.double(b), .double))):
            let result = switch op {
            case .add: a + b
            case .subtract: a - b
            case .multiply: a * b
            }
            return .value(.constant(.double(result), .double))
        default:
            throw Untranslatable(reason: "arithmetic on stored values, which traps on overflow in Swift")
        }
    }

    /// A type check on a model object.
    func typeCheck(_ input: QueryTerm, desired: Any.Type) throws(Untranslatable) -> QueryTerm {
        guard case .row(let row) = input, case .scope = row else { throw Untranslatable(reason: "a type check on a value") }
        guard let desiredClass = desired as? ManagedObject.Type, let entity = model.entity(for: desiredClass) else {
            throw Untranslatable(reason: "a type check against \(desired), which is not an entity")
        }
        return .condition(.entityIn(row, entity.selfAndSubentityNames))
    }
}
