// Comparisons of doubles and dates, written so that SQL answers as Swift does: NaN compares
// false (but `!=`), and the two zeros are equal — in SQLite, where NaN and -0.0 are stored as
// blobs, and in PostgreSQL, where NaN sorts above every number.
extension SQLQueryRenderer {
    /// `lhs op constant` for a double or date in PostgreSQL, where `-0 = 0` already and a NaN
    /// is above every number: only `>` and `>=` must leave NaN out.
    mutating func compareInPostgreSQL(_ lhs: QueryValue, _ op: QueryComparison, _ constant: Double) -> String {
        if constant.isNaN { return op == .notEqual ? always : never }
        let expression = value(lhs)
        let bound = bind(.double(constant))
        switch op {
        case .equal, .notEqual:
            let equal = "\(expression) \(lhs.isOptional ? dialect.isOperator : "=") \(bound)"
            return op == .equal ? equal : "NOT " + parenthesized(equal)
        case .less, .lessOrEqual:
            return "\(expression) \(sqlOperator(op, nullable: false)) \(bound)"
        case .greater, .greaterOrEqual:
            return "(\(expression) \(sqlOperator(op, nullable: false)) \(bound) AND \(expression) <> \(PostgreSQLQueryFunctions.notANumber))"
        }
    }

    /// Two computed doubles or dates compared as Swift compares them (nil a value for `==`),
    /// in PostgreSQL: a NaN on either side makes every comparison but `!=` false.
    func compareDoublesInPostgreSQL(_ lhs: String, _ op: QueryComparison, _ rhs: String) -> String {
        let nan = PostgreSQLQueryFunctions.notANumber
        switch op {
        case .equal, .notEqual:
            let equal = "(\(lhs) IS NOT DISTINCT FROM \(rhs) AND \(lhs) IS DISTINCT FROM \(nan))"
            return op == .equal ? equal : "NOT " + equal
        case .less, .lessOrEqual:
            return "(\(lhs) \(sqlOperator(op, nullable: false)) \(rhs) AND \(rhs) <> \(nan))"
        case .greater, .greaterOrEqual:
            return "(\(lhs) \(sqlOperator(op, nullable: false)) \(rhs) AND \(lhs) <> \(nan))"
        }
    }

    /// `lhs op constant` for a double or date, with the blobs of NaN and -0.0 answered as Swift
    /// answers for those values (SQLite).
    mutating func compare(_ lhs: QueryValue, _ op: QueryComparison, _ constant: Double) -> String {
        if constant.isNaN { return op == .notEqual ? always : never }
        // The two zeros compare equal; bind the one SQLite keeps as a number.
        let constant = constant == 0 ? 0.0 : constant
        switch op {
        case .equal, .notEqual:
            let expression = value(lhs)
            let equal: String
            if constant == 0 {
                equal = lhs.isOptional
                    ? "(\(expression) IS 0.0 OR \(expression) IS \(Self.negativeZero))"
                    : "\(expression) IN (0.0, \(Self.negativeZero))"
            } else {
                equal = "\(expression) \(lhs.isOptional ? "IS" : "=") \(bind(.double(constant)))"
            }
            return op == .equal ? equal : "NOT " + parenthesized(equal)
        default:
            let sqlOperator = switch op {
            case .less: "<"
            case .lessOrEqual: "<="
            case .greater: ">"
            default: ">="
            }
            let expression = value(lhs)
            var text = "(\(expression) \(sqlOperator) \(bind(.double(constant))) AND \(expression) < \(Self.emptyBlob))"
            if op.holds(-0.0, constant) { text = "(\(text) OR \(expression) = \(Self.negativeZero))" }
            return text
        }
    }
}
