// `ORDER BY` and the keyset condition of a walk in that order, written from the same terms so
// that they always agree.
extension SQLQueryRenderer {
    /// The `ORDER BY` terms of `keys`, then the tie-break by object ID (entity name, then key);
    /// the entity is left out when every row is of one entity.
    mutating func orderBy(_ keys: [QuerySortKey], entityTieBreak: Bool) -> String {
        orderTerms(keys, entityTieBreak: entityTieBreak, boundary: nil).map { term in
            term.expression + (term.collation.map { " COLLATE \($0)" } ?? "") + (term.descending ? " DESC" : "") + term.nullsPlacement
        }.joined(separator: ", ")
    }

    /// The rows that come after `boundary` in the order of `keys` (with the same tie-break as
    /// ``orderBy(_:entityTieBreak:)``): the next page of a keyset walk, whatever the keys' types.
    mutating func after(_ boundary: QueryKeyset, keys: [QuerySortKey], entityTieBreak: Bool) -> String {
        let terms = orderTerms(keys, entityTieBreak: entityTieBreak, boundary: boundary)
        var alternatives: [String] = []
        for (index, term) in terms.enumerated() {
            // Equal on every earlier term, after on this one.
            let parts = terms[..<index].map { $0.equalsBoundary } + [term.afterBoundary]
            alternatives.append("(" + parts.joined(separator: " AND ") + ")")
        }
        return "(" + alternatives.joined(separator: " OR ") + ")"
    }

    /// One term of an `ORDER BY`, and the tests against a boundary row's value of it.
    struct OrderTerm {
        let expression: String
        let collation: String?
        let descending: Bool
        /// The boundary's value as a placeholder, or `nil` for NULL.
        let boundary: String?
        var dialect: SQLDialect = .sqlite
        /// Whether the expression can be NULL (PostgreSQL then says where NULLs go).
        var isOptional = false

        private var collated: String { expression + (collation.map { " COLLATE \($0)" } ?? "") }

        var equalsBoundary: String {
            boundary.map { "\(collated) \(dialect.isOperator) \($0)" } ?? "\(expression) IS NULL"
        }

        /// NULL comes first going forward, last in reverse.
        var afterBoundary: String {
            switch (descending, boundary) {
            case (false, let value?): "\(collated) > \(value)"
            case (false, nil): "\(expression) IS NOT NULL"
            case (true, let value?): "(\(collated) < \(value) OR \(expression) IS NULL)"
            case (true, nil): dialect.booleanLiteral(false)
            }
        }

        /// SQLite sorts NULL first going forward and last in reverse, as Swift sorts nil;
        /// PostgreSQL the other way round unless told.
        var nullsPlacement: String {
            guard dialect == .postgreSQL, isOptional else { return "" }
            return descending ? " NULLS LAST" : " NULLS FIRST"
        }
    }

    /// The terms of `keys`: a double or date sorts by two (NaN or not; the number, -0.0 as 0.0),
    /// a string with its comparator's collation; with `boundary`, each term's value for it.
    mutating func orderTerms(_ keys: [QuerySortKey], entityTieBreak: Bool, boundary: QueryKeyset?) -> [OrderTerm] {
        var terms: [OrderTerm] = []
        for (index, key) in keys.enumerated() {
            let value = boundary.map { $0.values[index] }
            let expression = self.value(key.value)
            switch dialect {
            case .sqlite where key.value.type.isFloatingPoint:
                // NaN after every number (before, in reverse), -0.0 with 0.0, nil first.
                let number = value?.floatingValue
                terms.append(OrderTerm(
                    expression: "(typeof(\(expression)) = 'blob' AND \(expression) <> \(Self.negativeZero))", collation: nil,
                    descending: key.reverse, boundary: boundary.map { _ in bind(.integer(number?.isNaN == true ? 1 : 0)) }))
                terms.append(OrderTerm(
                    expression: "CASE WHEN typeof(\(expression)) = 'blob' THEN 0.0 ELSE \(expression) END", collation: nil,
                    descending: key.reverse, boundary: number.map { bind(.double($0.isNaN || $0 == 0 ? 0.0 : $0)) }))
            case .sqlite:
                let bound = value.flatMap { $0 == .null ? nil : bind($0) }
                terms.append(OrderTerm(expression: expression, collation: key.collation?.sqlName, descending: key.reverse, boundary: bound))
            case .postgreSQL:
                // `float8` sorts NaN after every number and -0 with 0 already; strings sort as
                // they compare (the translator sends only Swift's own string order here).
                let isString = key.value.type == .string
                let bound = value.flatMap { $0 == .null ? nil : (isString ? collatedOperand(bind($0)) : bind($0)) }
                terms.append(OrderTerm(
                    expression: isString ? PostgreSQLQueryFunctions.normalized(expression) : expression, collation: isString ? "\"C\"" : nil,
                    descending: key.reverse, boundary: bound, dialect: .postgreSQL, isOptional: key.value.isOptional))
            }
        }
        if entityTieBreak {
            terms.append(OrderTerm(
                expression: "\(rootAlias).entity", collation: dialect == .sqlite ? SQLiteQueryFunctions.stringCollation : "\"C\"", descending: false,
                boundary: boundary.map { bind(.string($0.entityName)) }, dialect: dialect))
        }
        terms.append(OrderTerm(
            expression: "\(rootAlias).pk", collation: nil, descending: false, boundary: boundary.map { bind(.integer($0.primaryKey)) }, dialect: dialect))
        return terms
    }
}

/// A row to continue after, in a sort: its value of each sort key, and its object ID.
struct QueryKeyset: Sendable {
    let values: [PropertyValue]
    let entityName: String
    let primaryKey: Int64
}

/// One key of a translated sort.
struct QuerySortKey: Sendable {
    let value: QueryValue
    /// For strings, the collation of the descriptor's comparator.
    let collation: QueryCollation?
    let reverse: Bool
}

/// The string orders SQLite sorts with, each a collation that calls the Swift comparison.
enum QueryCollation: Sendable {
    /// ``CanonicalStringOrder``, the order of `String`s in every store.
    case swift
    /// `String.StandardComparator.lexical`.
    case lexical
    /// `String.StandardComparator.localized`.
    case localized
    /// `String.StandardComparator.localizedStandard`.
    case localizedStandard

    var sqlName: String {
        switch self {
        case .swift: SQLiteQueryFunctions.stringCollation
        case .lexical: SQLiteQueryFunctions.lexicalCollation
        case .localized: SQLiteQueryFunctions.localizedCollation
        case .localizedStandard: SQLiteQueryFunctions.localizedStandardCollation
        }
    }
}
