/// What a PostgreSQL store's queries need beyond plain SQL to answer as Swift does: the string
/// form every comparison and declared index uses, NaN, and `og_arith`, the function a store
/// creates in its schema so that integer arithmetic raises exactly where Swift traps.
///
/// - Strings: `normalize(x, NFC) COLLATE "C"` — canonical composition, then byte order — is
///   Swift's `==` (canonical equivalence) and `<` (the order of the NFC form's Unicode scalars),
///   whatever the database's default collation. `normalize` is immutable, so declared indexes
///   are built on the same expression and serve these comparisons.
/// - `og_arith(code, a, b)` takes the same codes as SQLite's (``SQLiteQueryFunctions/code(of:_:)``):
///   it computes in `numeric`, checks the result against the Swift type's range, and raises
///   SQLSTATE 22003 (overflow) or 22012 (division by zero) with ``PredicateTrap``'s own message
///   after the ``PredicateTrap/sqlMarker``; the store reports it as
///   ``ObjectGraphError/predicateFailed(entity:message:)``, as SQLite and memory do. It is
///   `VOLATILE` so that the planner never works a call out before reading a row.
enum PostgreSQLQueryFunctions {
    /// `expression` in NFC, the form strings compare in.
    static func normalized(_ expression: String) -> String {
        "normalize(\(expression), NFC)"
    }

    /// `float8`'s NaN, which PostgreSQL orders after every number and finds equal to itself.
    static let notANumber = "'NaN'::float8"

    /// The SQLSTATEs of an integer overflow and a division by zero.
    static let overflowCode = "22003"
    static let divisionByZeroCode = "22012"

    /// Creates (or replaces) `og_arith` in the schema the connection creates tables in.
    static let definitions: [String] = [
        """
        CREATE OR REPLACE FUNCTION og_arith(code integer, a bigint, b bigint) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $og$
        DECLARE
            op integer := code / 16;
            kind integer := code % 16;
            low numeric := CASE kind WHEN 1 THEN -128 WHEN 2 THEN -32768 WHEN 3 THEN -2147483648
                WHEN 5 THEN 0 WHEN 6 THEN 0 WHEN 7 THEN 0 ELSE -9223372036854775808 END;
            high numeric := CASE kind WHEN 1 THEN 127 WHEN 2 THEN 32767 WHEN 3 THEN 2147483647
                WHEN 5 THEN 255 WHEN 6 THEN 65535 WHEN 7 THEN 4294967295 ELSE 9223372036854775807 END;
            type_name text := CASE kind WHEN 1 THEN 'Int8' WHEN 2 THEN 'Int16' WHEN 3 THEN 'Int32' WHEN 4 THEN 'Int64'
                WHEN 5 THEN 'UInt8' WHEN 6 THEN 'UInt16' WHEN 7 THEN 'UInt32' ELSE 'Int' END;
            symbol text := CASE op WHEN 0 THEN '+' WHEN 1 THEN '-' WHEN 2 THEN '*' WHEN 3 THEN '/' ELSE '%' END;
            result numeric;
        BEGIN
            IF a IS NULL OR (op <> 8 AND b IS NULL) THEN
                RETURN NULL;
            END IF;
            IF op = 8 THEN
                result := -(a::numeric);
                IF result < low OR result > high THEN
                    RAISE EXCEPTION USING ERRCODE = '22003', MESSAGE = 'og_trap: -(' || a || ') overflows ' || type_name;
                END IF;
                RETURN result;
            END IF;
            IF op IN (3, 4) AND b = 0 THEN
                RAISE EXCEPTION USING ERRCODE = '22012', MESSAGE = 'og_trap: ' || a || ' ' || symbol || ' 0: division by zero';
            END IF;
            IF op IN (3, 4) AND b = -1 AND a = low THEN
                RAISE EXCEPTION USING ERRCODE = '22003', MESSAGE = 'og_trap: ' || a || ' ' || symbol || ' ' || b || ' overflows ' || type_name;
            END IF;
            result := CASE op WHEN 0 THEN a::numeric + b WHEN 1 THEN a::numeric - b WHEN 2 THEN a::numeric * b
                WHEN 3 THEN (a / b)::numeric ELSE (a % b)::numeric END;
            IF result < low OR result > high THEN
                RAISE EXCEPTION USING ERRCODE = '22003', MESSAGE = 'og_trap: ' || a || ' ' || symbol || ' ' || b || ' overflows ' || type_name;
            END IF;
            RETURN result;
        END
        $og$
        """,
    ]

    /// The error a failed statement's SQLSTATE and message stand for when a query met what
    /// Swift traps on; `nil` for any other failure.
    static func predicateFailure(code: String, message: String) -> ObjectGraphError? {
        guard code == overflowCode || code == divisionByZeroCode else { return nil }
        guard let marker = message.range(of: PredicateTrap.sqlMarker) else {
            return .predicateFailed(entity: "", message: message)
        }
        var text = message[marker.upperBound...]
        // The connection appends the statement: "… (in: SELECT …)".
        if let statement = text.range(of: " (in: ") { text = text[..<statement.lowerBound] }
        return .predicateFailed(entity: "", message: String(text))
    }
}
