import CSQLite
import Foundation

/// The collations and functions every connection of a store registers, so that SQLite answers
/// string and double questions with the very Swift code the in-memory path runs.
///
/// - `og_string`: the store's string order (``CanonicalStringOrder``: `==` as canonical
///   equivalence, then the NFC forms' code points). A query
///   compares strings with it, so **an index on a string attribute must be declared with it**
///   for SQLite to use the index for `==`, `<` and ranges: write the column with
///   ``indexedColumn(_:type:)``.
/// - `og_lexical`, and on Apple platforms `og_localized` and `og_localized_standard`: the
///   `String.StandardComparator`s, for `ORDER BY` of a `SortDescriptor` on a string.
/// - `og_contains(base, other)`, `og_starts_with(base, prefix)`: `#Predicate`'s own string tests.
/// - `og_compare_double(op, a, b)`: two stored doubles or dates compared as Swift compares them,
///   whether stored as REAL or as the 8-byte blobs of NaN and -0.0.
/// - `og_arith(code, a, b)`: integer or `Double` arithmetic as Swift computes it (``CheckedArithmetic``):
///   an integer result outside the Swift type's range or a division by zero fails the
///   statement with the ``PredicateTrap`` Swift would trap on; doubles come back in their
///   stored form (NaN and -0.0 as blobs).
enum SQLiteQueryFunctions {
    static let stringCollation = SQLiteCollation.name
    static let lexicalCollation = "og_lexical"
    static let localizedCollation = "og_localized"
    static let localizedStandardCollation = "og_localized_standard"
    static let containsFunction = "og_contains"
    static let startsWithFunction = "og_starts_with"
    static let compareDoubleFunction = "og_compare_double"
    static let arithmeticFunction = "og_arith"

    /// The code `og_arith` takes for `op` in `number`'s type: the operation times 16, plus the
    /// integer kind (15 for `Double`).
    static func code(of op: ArithmeticOperation, _ number: QueryNumber) -> Int {
        op.rawValue * 16 + kindCode(number)
    }

    /// The code of a negation in `number`'s type (its second argument is NULL).
    static func negationCode(_ number: QueryNumber) -> Int {
        negationOperation * 16 + kindCode(number)
    }

    private static let negationOperation = 8
    private static let doubleKind = 15

    private static func kindCode(_ number: QueryNumber) -> Int {
        switch number {
        case .integer(let kind): kind.rawValue
        case .double: doubleKind
        }
    }

    /// How an index declares a column so that the queries of ``SQLQueryRenderer`` can use it:
    /// strings with the `og_string` collation, other types as they are.
    ///
    /// ```swift
    /// "CREATE INDEX … ON \"Profile\" (\(SQLiteQueryFunctions.indexedColumn("city", type: .string)), \"rank\")"
    /// ```
    static func indexedColumn(_ column: String, type: AttributeType) -> String {
        let quoted = SQLSchema.quoted(column)
        return type == .string ? SQLiteCollation.collated(quoted) : quoted
    }

    /// The code `og_compare_double` takes for an operator.
    static func code(of op: QueryComparison) -> Int {
        switch op {
        case .equal: 0
        case .notEqual: 1
        case .less: 2
        case .lessOrEqual: 3
        case .greater: 4
        case .greaterOrEqual: 5
        }
    }

    /// Registers everything on a connection; `false` if SQLite refused (out of memory).
    static func register(on handle: OpaquePointer) -> Bool {
        var ok = true
        var collations: [(String, Int)] = [(stringCollation, 0), (lexicalCollation, 1)]
        #if canImport(Darwin)
        // Foundation has localized comparators only where it has the locale data.
        collations += [(localizedCollation, 2), (localizedStandardCollation, 3)]
        #endif
        for (name, tag) in collations {
            ok = ok && sqlite3_create_collation_v2(handle, name, SQLITE_UTF8, UnsafeMutableRawPointer(bitPattern: tag + 1), { tag, lengthA, bytesA, lengthB, bytesB in
                SQLiteQueryFunctions.compareStrings(tag: Int(bitPattern: tag) - 1, UnsafeRawBufferPointer(start: bytesA, count: Int(lengthA)), UnsafeRawBufferPointer(start: bytesB, count: Int(lengthB)))
            }, nil) == SQLITE_OK
        }
        let deterministic = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        ok = ok && sqlite3_create_function_v2(handle, containsFunction, 2, deterministic, nil, { context, _, arguments in
            SQLiteQueryFunctions.stringTest(context, arguments) { base, other in
                (try? PredicateExpressions.CollectionContainsCollection(base: PredicateExpressions.Value(base), other: PredicateExpressions.Value(other))
                    .evaluate(PredicateBindings())) ?? false
            }
        }, nil, nil, nil) == SQLITE_OK
        ok = ok && sqlite3_create_function_v2(handle, startsWithFunction, 2, deterministic, nil, { context, _, arguments in
            SQLiteQueryFunctions.stringTest(context, arguments) { base, prefix in
                (try? PredicateExpressions.SequenceStartsWith(base: PredicateExpressions.Value(base), prefix: PredicateExpressions.Value(prefix))
                    .evaluate(PredicateBindings())) ?? false
            }
        }, nil, nil, nil) == SQLITE_OK
        ok = ok && sqlite3_create_function_v2(handle, compareDoubleFunction, 3, deterministic, nil, { context, _, arguments in
            guard let arguments else { return sqlite3_result_null(context) }
            let op = sqlite3_value_int(arguments[0])
            let lhs = SQLiteQueryFunctions.double(of: arguments[1])
            let rhs = SQLiteQueryFunctions.double(of: arguments[2])
            guard let result = SQLiteQueryFunctions.compareDoubles(op: op, lhs, rhs) else { return sqlite3_result_null(context) }
            sqlite3_result_int(context, result ? 1 : 0)
        }, nil, nil, nil) == SQLITE_OK
        // Not marked deterministic: a call with constant arguments must not be worked out once
        // before the rows are read, where it could raise for a statement that reads no row.
        ok = ok && sqlite3_create_function_v2(handle, arithmeticFunction, 3, SQLITE_UTF8, nil, { context, _, arguments in
            guard let arguments else { return sqlite3_result_null(context) }
            SQLiteQueryFunctions.arithmetic(context, code: Int(sqlite3_value_int(arguments[0])), arguments[1], arguments[2])
        }, nil, nil, nil) == SQLITE_OK
        return ok
    }

    // MARK: Arithmetic

    /// One `og_arith` call: NULL in, NULL out (an optional unwrapped only where present).
    static func arithmetic(_ context: OpaquePointer?, code: Int, _ lhs: OpaquePointer?, _ rhs: OpaquePointer?) {
        let operation = code / 16
        let kindCode = code % 16
        let negates = operation == negationOperation
        guard sqlite3_value_type(lhs) != SQLITE_NULL, negates || sqlite3_value_type(rhs) != SQLITE_NULL else {
            return sqlite3_result_null(context)
        }
        if kindCode == doubleKind {
            guard let a = double(of: lhs) else { return sqlite3_result_null(context) }
            let b = negates ? 0 : (double(of: rhs) ?? 0)
            let result: Double = switch ArithmeticOperation(rawValue: operation) {
            case .add?: a + b
            case .subtract?: a - b
            case .multiply?: a * b
            case .divide?: a / b
            case .remainder?, nil: negates ? -a : .nan
            }
            return resultDouble(context, result)
        }
        guard let kind = IntegerKind(rawValue: kindCode) else { return sqlite3_result_null(context) }
        let a = sqlite3_value_int64(lhs)
        do throws(PredicateTrap) {
            if negates {
                sqlite3_result_int64(context, try CheckedArithmetic.negate(a, kind: kind))
            } else if let op = ArithmeticOperation(rawValue: operation) {
                sqlite3_result_int64(context, try CheckedArithmetic.apply(op, a, sqlite3_value_int64(rhs), kind: kind))
            } else {
                sqlite3_result_null(context)
            }
        } catch {
            sqlite3_result_error(context, PredicateTrap.sqlMarker + error.description, -1)
        }
    }

    /// A double result in the form doubles are stored in (see ``SQLiteStatement/bind(_:at:)-(Double,_)``).
    private static func resultDouble(_ context: OpaquePointer?, _ value: Double) {
        guard value.isNaN || (value == 0 && value.sign == .minus) else { return sqlite3_result_double(context, value) }
        var bits = value.bitPattern.bigEndian
        withUnsafeBytes(of: &bits) { sqlite3_result_blob(context, $0.baseAddress, 8, csqlite_transient()) }
    }

    // MARK: Strings

    /// The comparison behind each collation: `tag` 0 is ``CanonicalStringOrder``, 1…3 the
    /// standard comparators.
    static func compareStrings(tag: Int, _ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int32 {
        if tag == 0 { return SQLiteCollation.compare(lhs, rhs) }
        let a = String(decoding: lhs, as: UTF8.self)
        let b = String(decoding: rhs, as: UTF8.self)
        let result: ComparisonResult
        switch tag {
        case 1: result = String.StandardComparator.lexical.compare(a, b)
        default:
            #if canImport(Darwin)
            result = (tag == 2 ? String.StandardComparator.localized : .localizedStandard).compare(a, b)
            #else
            result = String.StandardComparator.lexical.compare(a, b)  // not registered on this platform
            #endif
        }
        switch result {
        case .orderedAscending: return -1
        case .orderedSame: return 0
        case .orderedDescending: return 1
        }
    }

    private static func text(of value: OpaquePointer?) -> String? {
        guard sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    static func stringTest(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ test: (String, String) -> Bool) {
        guard let arguments, let base = text(of: arguments[0]), let argument = text(of: arguments[1]) else {
            return sqlite3_result_null(context)
        }
        sqlite3_result_int(context, test(base, argument) ? 1 : 0)
    }

    // MARK: Doubles

    /// A stored double as ``SQLiteStatement/double(at:)`` reads it; `nil` for NULL.
    static func double(of value: OpaquePointer?) -> Double? {
        switch sqlite3_value_type(value) {
        case SQLITE_NULL: return nil
        case SQLITE_BLOB:
            guard sqlite3_value_bytes(value) == 8, let blob = sqlite3_value_blob(value) else { return .nan }
            return Double(bitPattern: UInt64(bigEndian: blob.loadUnaligned(as: UInt64.self)))
        default: return sqlite3_value_double(value)
        }
    }

    /// Swift's answer for `lhs op rhs`, nil being a value for `==` and `!=`; `nil` for an
    /// ordering with nil, which Swift does not have.
    static func compareDoubles(op: Int32, _ lhs: Double?, _ rhs: Double?) -> Bool? {
        switch op {
        case 0: return lhs == rhs
        case 1: return lhs != rhs
        default:
            guard let lhs, let rhs else { return nil }
            switch op {
            case 2: return lhs < rhs
            case 3: return lhs <= rhs
            case 4: return lhs > rhs
            default: return lhs >= rhs
            }
        }
    }
}
