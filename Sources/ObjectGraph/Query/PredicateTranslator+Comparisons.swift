import Foundation

// Comparisons, membership and ranges, string tests, type checks, and arithmetic.
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
    ///
    /// Swift compares characters (grapheme clusters, by canonical equivalence). A dialect that
    /// cannot (PostgreSQL) compares the Unicode scalars of both strings in NFC instead: that
    /// finds every row Swift finds and a few more (`"q\u{301}"` holds the scalar `q`, not the
    /// character), so it only narrows — the test is checked again in memory — and only where it
    /// is a conjunct of its own: under a `!` or an `||` a wider answer would be a wrong one.
    mutating func stringTest(_ test: QueryStringTest, _ base: QueryTerm, _ argument: QueryTerm) throws(Untranslatable) -> QueryTerm {
        let base = try value(of: base)
        let argument = try value(of: argument)
        guard base.type == .string, argument.type == .string, !base.isOptional, !argument.isOptional else {
            throw Untranslatable(reason: "\(test.rawValue) on values that are not strings")
        }
        if !dialect.comparesCharacters {
            guard conjunctIsStringTest else {
                throw Untranslatable(reason: "\(dialect.name) compares Unicode scalars, not characters, and this \(test.rawValue) is inside other logic")
            }
            narrowedStringTest = true
        }
        return .condition(.string(test, base, argument))
    }

    /// `-value` in Swift's type `Output`. (A negated captured number never gets here: it reads
    /// nothing of the object and was worked out before.)
    func negate<Output>(_ term: QueryTerm, as type: Output.Type) throws(Untranslatable) -> QueryTerm {
        let value = try value(of: term)
        let number = try number(of: type, for: value)
        return .value(.negation(number, value))
    }

    /// `lhs op rhs` in Swift's type `Output`: integers (whose traps SQL raises) and `Double`.
    func arithmetic<Output>(_ lhs: QueryTerm, _ op: ArithmeticOperation, _ rhs: QueryTerm, as type: Output.Type) throws(Untranslatable) -> QueryTerm {
        let left = try value(of: lhs)
        let right = try value(of: rhs)
        guard left.type == right.type else { throw Untranslatable(reason: "arithmetic on values of different stored types") }
        let number = try number(of: type, for: left)
        return .value(.arithmetic(op, number, left, right))
    }

    /// The type arithmetic in `Output` runs in, if SQL can give its results exactly.
    private func number<Output>(of type: Output.Type, for value: QueryValue) throws(Untranslatable) -> QueryNumber {
        if let kind = IntegerKind(type), value.type == .integer { return .integer(kind) }
        if type == Double.self, value.type == .double {
            guard dialect.computesDoubles else {
                throw Untranslatable(reason: "arithmetic in Double, which \(dialect.name) does not compute as Swift does (it raises on overflow and division by zero)")
            }
            return .double
        }
        throw Untranslatable(reason: "arithmetic in \(type), which SQL does not compute as Swift does")
    }

    /// A range `lower...upper` (or `..<`): bounds must be worked out before the query (a range
    /// with a bound read from the object would trap in Swift where it is reversed).
    func range(lower: QueryTerm, upper: QueryTerm, closed: Bool) throws(Untranslatable) -> QueryTerm {
        let low = try value(of: lower)
        let high = try value(of: upper)
        guard low.isConstant, high.isConstant else { throw Untranslatable(reason: "a range with a bound read from the object") }
        return .range(lower: low, upper: high, closed: closed)
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
