import Foundation

/// Writes translated conditions, values and sort keys as SQL expressions in the schema's
/// dialect, with numbered placeholders (`?1`, `?2`, … or `$1`, `$2`, …) whose values collect in
/// ``bindings``; a piece of text may be written twice and still name the same values.
///
/// The SQL gives Swift's answer for every stored form. In SQLite:
/// - strings compare with the `og_string` collation (``CanonicalStringOrder``), which an index must
///   be declared with to serve them (see ``SQLiteQueryFunctions/indexedColumn(_:type:)``);
/// - doubles and dates are stored as REAL, except NaN and -0.0, stored as 8-byte blobs: `x < c`
///   is written `x < c AND x < X''` (a blob sorts after every number) plus `x = X'80…'` when
///   `-0.0 < c`, `x == 0` matches both zeros, and a NaN constant matches nothing;
/// - `==` and `!=` treat nil as a value (`IS`, `IS NOT`);
/// - two computed doubles are compared by `og_compare_double`, which decodes both forms and
///   compares in Swift;
/// - `Date` has only its own `<`; its `<=` and `>=` are `Comparable`'s `!(b < a)`, true with a
///   NaN, and are written so.
///
/// In PostgreSQL (see ``SQLDialect/postgreSQL``):
/// - strings compare as `normalize(x, NFC) COLLATE "C"`: Unicode's canonical composition, then
///   byte order, which is ``CanonicalStringOrder`` (declared indexes use the same expression);
/// - `float8` equates `-0` and `0` as Swift does, but its NaN equals itself and sorts after
///   every number: `x > c` and `x >= c` also say `x <> 'NaN'`, and two computed doubles are
///   compared with the NaN cases written out;
/// - `==` and `!=` on optionals are `IS NOT DISTINCT FROM` and `IS DISTINCT FROM`;
/// - integer arithmetic that may trap calls the store's `og_arith` function, which raises
///   Swift's trap (``PostgreSQLQueryFunctions``); `Double` arithmetic and `contains`/`starts(with:)`
///   on characters stay in memory (the translator knows, see ``PredicateTranslator``), the
///   string tests after narrowing the rows by Unicode scalars.
///
/// The fetched row's alias is a parameter, so that a batch `UPDATE` or `DELETE` can name its
/// table directly.
struct SQLQueryRenderer {
    let schema: SQLSchema
    let model: ObjectModel
    /// The name the fetched row goes by (`r` in a `SELECT … FROM "Content" AS r`).
    let rootAlias: String
    /// The values of the `?` placeholders written so far, in order.
    private(set) var bindings: [PropertyValue] = []
    private var nextHopAlias = 1

    init(schema: SQLSchema, model: ObjectModel, rootAlias: String = "r") {
        self.schema = schema
        self.model = model
        self.rootAlias = rootAlias
    }

    /// The SQL written.
    var dialect: SQLDialect { schema.dialect }

    static let negativeZero = "X'8000000000000000'"
    /// Lists longer than this are bound as one JSON array when JSON can carry their values.
    static let longKeyList = 64

    /// `values` as a JSON array that `json_each` reads back as the same SQL values: keys,
    /// integers, booleans and strings without NUL; `nil` for anything else.
    static func jsonArray(of values: [PropertyValue]) -> String? {
        var items: [String] = []
        items.reserveCapacity(values.count)
        for value in values {
            switch value {
            case .object(let id): items.append(String(id.primaryKey))
            case .integer(let int): items.append(String(int))
            case .bool(let bool): items.append(bool ? "1" : "0")
            case .string(let string) where !string.utf8.contains(0):
                guard let data = try? JSONEncoder().encode(string), let text = String(data: data, encoding: .utf8) else { return nil }
                items.append(text)
            default: return nil
            }
        }
        return "[" + items.joined(separator: ",") + "]"
    }
    static let emptyBlob = "X''"

    /// `true` and `false` as conditions.
    var always: String { dialect.booleanLiteral(true) }
    var never: String { dialect.booleanLiteral(false) }

    // MARK: Conditions

    mutating func condition(_ condition: QueryCondition) -> String {
        switch condition {
        case .constant(let value):
            return dialect.booleanLiteral(value)
        case .and(let parts):
            guard !parts.isEmpty else { return always }
            // An `.ordered` part carries the guards it needs (the translator's top level).
            if parts.count > 1, parts.contains(where: { if case .ordered = $0 { false } else { $0.mayRaise } }) {
                return inOrder(parts, stoppingAt: false)
            }
            return parts.count == 1 ? self.condition(parts[0]) : "(" + parts.map { self.condition($0) }.joined(separator: " AND ") + ")"
        case .ordered(let parts):
            guard !parts.isEmpty else { return always }
            return parts.count == 1 ? self.condition(parts[0]) : inOrder(parts, stoppingAt: false)
        case .or(let parts):
            guard !parts.isEmpty else { return never }
            if parts.count > 1, condition.mayRaise { return inOrder(parts, stoppingAt: true) }
            return parts.count == 1 ? self.condition(parts[0]) : "(" + parts.map { self.condition($0) }.joined(separator: " OR ") + ")"
        case .not(.isNil(let value)):
            return self.value(value) + " IS NOT NULL"
        case .not(let inner):
            return "NOT " + parenthesized(self.condition(inner))
        case let .compare(lhs, op, rhs):
            return compare(lhs, op, rhs)
        case .isNil(let value):
            return self.value(value) + " IS NULL"
        case .isTrue(let value):
            if case .condition(let inner) = value { return self.condition(inner) }
            return self.value(value) + " = " + always
        case let .isIn(value, values):
            return isIn(value, values)
        case .exists(let row):
            guard case let .target(key, entity) = row else { return always }
            let alias = hopAlias()
            return "EXISTS (SELECT 1 FROM \(table(of: entity)) AS \(alias) WHERE \(alias).pk = \(self.value(key)))"
        case let .anyTarget(toMany, scope, test):
            let (from, filter) = targets(of: toMany, alias: alias(ofScope: scope))
            if case .constant(true) = test { return "EXISTS (SELECT 1 \(from) WHERE \(filter))" }
            return "EXISTS (SELECT 1 \(from) WHERE \(filter) AND \(self.condition(test)))"
        case let .entityIn(row, names):
            guard case .scope(let scope, _) = row else { return never }
            let list = names.compactMap(model.entity(named:)).map(schema.rowName(of:)).sorted().map(dialect.literal).joined(separator: ", ")
            return "\(alias(ofScope: scope)).entity IN (\(list))"
        case let .string(test, base, argument):
            switch dialect {
            case .sqlite:
                let function = switch test {
                case .contains: SQLiteQueryFunctions.containsFunction
                case .startsWith: SQLiteQueryFunctions.startsWithFunction
                }
                return "\(function)(\(value(base)), \(value(argument)))"
            case .postgreSQL:
                // Unicode scalars in NFC: a narrowing that memory checks again (see the type).
                let (base, argument) = (PostgreSQLQueryFunctions.normalized(value(base)), PostgreSQLQueryFunctions.normalized(value(argument)))
                return switch test {
                case .contains: "strpos(\(base), \(argument)) > 0"
                case .startsWith: "starts_with(\(base), \(argument))"
                }
            }
        }
    }

    /// `&&` (or `||`) of parts some of which may raise, evaluated as Swift does: left to right,
    /// each only until one is `stop`. SQLite may evaluate the operands of `AND` and `OR` in any
    /// order; the branches of a `CASE` it evaluates in order, and only as far as needed.
    private mutating func inOrder(_ parts: [QueryCondition], stoppingAt stop: Bool) -> String {
        var text = "(CASE"
        for part in parts.dropLast() {
            text += stop ? " WHEN \(condition(part)) THEN \(always)" : " WHEN NOT \(parenthesized(condition(part))) THEN \(never)"
        }
        return text + " ELSE \(parenthesized(condition(parts[parts.count - 1]))) END)"
    }

    private mutating func compare(_ lhs: QueryValue, _ op: QueryComparison, _ rhs: QueryValue) -> String {
        // `Date` implements `<` only: its `<=` is `!(rhs < lhs)` and its `>=` is `!(lhs < rhs)`,
        // both true when a NaN is involved.
        if lhs.type == .date, op == .lessOrEqual || op == .greaterOrEqual {
            return "NOT " + parenthesized(compare(lhs, op == .lessOrEqual ? .greater : .less, rhs))
        }
        var (lhs, op, rhs) = (lhs, op, rhs)
        if lhs.isConstant, !rhs.isConstant { (lhs, op, rhs) = (rhs, op.flipped, lhs) }
        // A property of a to-one target against a value: the keys of the targets that have it,
        // so that indexes on both tables serve (a missing target never equals a value).
        if case let .property(.target(key, entity), property, type) = lhs, rhs.isConstant, rhs.floatingConstant.map({ !$0.isNaN }) ?? true {
            if case .constant(.null, _) = rhs {} else {
                let scope = nextHopScope()
                let test = QueryCondition.compare(.property(.scope(scope, entity), property, type), op == .notEqual ? .equal : op, rhs)
                let alias = alias(ofScope: scope)
                let subquery = "SELECT \(alias).pk FROM \(table(of: entity)) AS \(alias) WHERE \(condition(test))"
                let isIn = self.key(key, in: subquery)
                return op == .notEqual ? "NOT " + parenthesized(isIn) : isIn
            }
        }
        if case .constant(.null, _) = rhs {
            switch op {
            case .equal: return value(lhs) + " IS NULL"
            case .notEqual: return value(lhs) + " IS NOT NULL"
            default: return never  // Swift has no ordering with nil
            }
        }
        let nullable = lhs.isOptional || rhs.isOptional
        if lhs.type.isFloatingPoint {
            if let constant = rhs.floatingConstant {
                return dialect == .sqlite ? compare(lhs, op, constant) : compareInPostgreSQL(lhs, op, constant)
            }
            guard dialect == .sqlite else { return compareDoublesInPostgreSQL(value(lhs), op, value(rhs)) }
            return "\(SQLiteQueryFunctions.compareDoubleFunction)(\(SQLiteQueryFunctions.code(of: op)), \(value(lhs)), \(value(rhs)))"
        }
        let (left, right) = lhs.type == .string ? (collated(value(lhs)), collatedOperand(value(rhs))) : (value(lhs), value(rhs))
        return "\(left) \(sqlOperator(op, nullable: nullable)) \(right)"
    }

    /// The SQL operator for `op`; `==` and `!=` treat nil as a value when an operand may be nil.
    func sqlOperator(_ op: QueryComparison, nullable: Bool) -> String {
        switch op {
        case .equal: nullable ? dialect.isOperator : "="
        case .notEqual: nullable ? dialect.isNotOperator : "<>"
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        }
    }

    /// A string expression as it compares and sorts in ``CanonicalStringOrder``: collated with
    /// `og_string` in SQLite, NFC-normalised and compared byte by byte in PostgreSQL.
    func collated(_ expression: String) -> String {
        switch dialect {
        case .sqlite: expression + " COLLATE \(SQLiteQueryFunctions.stringCollation)"
        case .postgreSQL: PostgreSQLQueryFunctions.normalized(expression) + " COLLATE \"C\""
        }
    }

    /// The other side of a string comparison: as it is in SQLite (the left side's collation
    /// decides), NFC-normalised in PostgreSQL.
    func collatedOperand(_ expression: String) -> String {
        switch dialect {
        case .sqlite: expression
        case .postgreSQL: PostgreSQLQueryFunctions.normalized(expression)
        }
    }

    private mutating func isIn(_ value: QueryValue, _ values: [PropertyValue]) -> String {
        let expression = self.value(value)
        var list: [String] = []
        if value.type.isFloatingPoint {
            var hasZero = false
            for case let number? in values.map(\.floatingValue) where !number.isNaN {
                if number == 0 { hasZero = true } else { list.append(bind(.double(number))) }
            }
            // PostgreSQL's `-0 = 0` already; SQLite keeps -0.0 as a blob.
            if hasZero { list += dialect == .sqlite ? ["0.0", Self.negativeZero] : [bind(.double(0))] }
        } else if values.count > Self.longKeyList, let json = Self.jsonArray(of: values) {
            // Many values: one JSON array instead of a placeholder each.
            let array = bind(.string(json))
            list = switch (dialect, value.type) {
            case (.sqlite, _): ["SELECT value FROM json_each(\(array))"]
            case (.postgreSQL, .string): ["SELECT \(PostgreSQLQueryFunctions.normalized("value")) FROM jsonb_array_elements_text(\(array)::jsonb) AS value"]
            case (.postgreSQL, .bool): ["SELECT value::integer::boolean FROM jsonb_array_elements_text(\(array)::jsonb) AS value"]
            case (.postgreSQL, _): ["SELECT value::bigint FROM jsonb_array_elements_text(\(array)::jsonb) AS value"]
            }
        } else {
            list = values.map { value.type == .string ? collatedOperand(bind($0)) : bind($0) }
        }
        guard !list.isEmpty else { return never }
        let test = "\(value.type == .string ? collated(expression) : expression) IN (\(list.joined(separator: ", ")))"
        // `IN` is unknown for NULL; the condition must say false.
        return value.isOptional ? "(\(expression) IS NOT NULL AND \(test))" : test
    }

    /// `key IN (subquery)`, false (not unknown) for a nil key; a key that is itself read
    /// through a to-one relationship becomes the keys of the rows that point to the subquery's.
    private mutating func key(_ key: QueryValue, in subquery: String) -> String {
        if case let .property(.target(innerKey, entity), property, _) = key {
            let scope = nextHopScope()
            let alias = alias(ofScope: scope)
            let column = name(column(of: property, in: entity))
            return self.key(innerKey, in: "SELECT \(alias).pk FROM \(table(of: entity)) AS \(alias) WHERE \(alias).\(column) IN (\(subquery))")
        }
        let expression = value(key)
        let test = "\(expression) IN (\(subquery))"
        return key.isOptional ? "(\(expression) IS NOT NULL AND \(test))" : test
    }

    // MARK: Values

    mutating func value(_ value: QueryValue) -> String {
        switch value {
        case let .property(row, property, _):
            let column = name(column(of: property, in: row.entity))
            switch row {
            case .scope(let scope, _):
                return "\(alias(ofScope: scope)).\(column)"
            case let .target(key, entity):
                let alias = hopAlias()
                return "(SELECT \(alias).\(column) FROM \(table(of: entity)) AS \(alias) WHERE \(alias).pk = \(self.value(key)))"
            }
        case .key(let row):
            switch row {
            case .scope(let scope, _): return "\(alias(ofScope: scope)).pk"
            case .target(let key, _): return self.value(key)
            }
        case .constant(let constant, _):
            return constant == .null ? "NULL" : bind(constant)
        case let .coalesce(first, fallback):
            return "coalesce(\(self.value(first)), \(self.value(fallback)))"
        case let .unlessNil(isNil, inner):
            return "CASE WHEN \(condition(isNil)) THEN NULL ELSE \(self.value(inner)) END"
        case .unwrapped(let inner):
            return self.value(inner)
        case .condition(let inner):
            return parenthesized(condition(inner))
        case .count(let toMany):
            let (from, filter) = targets(of: toMany, alias: hopAlias())
            return "(SELECT count(*) \(from) WHERE \(filter))"
        case let .choice(test, whenTrue, whenFalse):
            return "CASE WHEN \(condition(test)) THEN \(self.value(whenTrue)) ELSE \(self.value(whenFalse)) END"
        case let .arithmetic(op, number, lhs, rhs):
            // A division by a constant that cannot trap is the database's own: SQLite and
            // PostgreSQL truncate toward zero, and `%` takes the dividend's sign, as Swift's do.
            if case .integer = number, op == .divide || op == .remainder, !number.mayRaise(op, divisor: rhs) {
                return "(\(self.value(lhs)) \(op.symbol) \(self.value(rhs)))"
            }
            return "\(SQLiteQueryFunctions.arithmeticFunction)(\(SQLiteQueryFunctions.code(of: op, number)), \(self.value(lhs)), \(self.value(rhs)))"
        case let .negation(number, inner):
            return "\(SQLiteQueryFunctions.arithmeticFunction)(\(SQLiteQueryFunctions.negationCode(number)), \(self.value(inner)), NULL)"
        }
    }

    // MARK: Names

    /// The alias of a scope: the fetched row (0), a to-many element (1, 2, …), or a row the
    /// renderer reads through a to-one relationship (-1, -2, …).
    func alias(ofScope scope: Int) -> String {
        scope == 0 ? rootAlias : (scope > 0 ? "t\(scope)" : "h\(-scope)")
    }

    private mutating func hopAlias() -> String {
        alias(ofScope: nextHopScope())
    }

    private mutating func nextHopScope() -> Int {
        defer { nextHopAlias += 1 }
        return -nextHopAlias
    }

    /// `name` quoted as an SQL identifier. Every query writes its names through here: a name
    /// without a double quote (every name, in practice) is not searched again.
    static func name(_ name: String, in dialect: SQLDialect = .sqlite) -> String {
        guard dialect.nameLengthLimit.map({ name.utf8.count <= $0 }) ?? true, !name.utf8.contains(UInt8(ascii: "\"")) else {
            return dialect.quotedName(name)
        }
        return "\"" + name + "\""
    }

    /// `name` quoted as an identifier of the schema's dialect.
    func name(_ name: String) -> String {
        Self.name(name, in: dialect)
    }

    /// The quoted table of an entity's hierarchy.
    func table(of entity: EntityDescription) -> String {
        name(schema.table(of: entity))
    }

    private func column(of property: PropertyDescription, in entity: EntityDescription) -> String {
        // The translator only reads properties of the entity it resolved them on.
        schema.mappings[entity]?.columnBySlot[property.index] ?? property.name
    }

    /// `FROM …` over the targets of a to-many relationship, bound to `alias`, and the condition
    /// that keeps them to the owner's: the same rows ``SQLiteStore/targets(of:relationship:)``
    /// reads.
    private mutating func targets(of toMany: QueryToMany, alias: String) -> (from: String, filter: String) {
        let ownerKey = value(.key(toMany.owner))
        let destinationTable = table(of: toMany.destination)
        switch schema.mappings[toMany.owner.entity]?.toMany[toMany.relationship.index] {
        case let .inverseForeignKey(_, _, column, _)?:
            var filter = "\(alias).\(name(column)) = \(ownerKey)"
            let family = toMany.destination.selfAndSubentityNames.compactMap(model.entity(named:))
            if let entities = schema.entityFilter(family, model: model, alias: alias) {
                filter += " AND \(entities)"
            }
            return ("FROM \(destinationTable) AS \(alias)", filter)
        case .joinTable(let join)?:
            let pairs = "j" + alias
            return (
                "FROM \(name(join.table)) AS \(pairs) JOIN \(destinationTable) AS \(alias) ON \(alias).pk = \(pairs).\(join.targetColumn)",
                "\(pairs).\(join.ownerColumn) = \(ownerKey)")
        case nil:
            return ("FROM \(destinationTable) AS \(alias)", never)
        }
    }

    /// A placeholder for `value`.
    mutating func bind(_ value: PropertyValue) -> String {
        bindings.append(value)
        return dialect.placeholder(bindings.count)
    }

    func parenthesized(_ text: String) -> String {
        "(" + text + ")"
    }
}
