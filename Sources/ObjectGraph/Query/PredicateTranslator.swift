import Foundation

/// Translates `#Predicate` expressions into ``QueryCondition``s that SQLite answers exactly as
/// Swift does. A pure function of the predicate, the model and the key-path resolver.
///
/// Any part that reads nothing of the object (captured values, arithmetic and comparisons on
/// them, `captured?.count`, a captured `Date`) is worked out once, before the query, and bound
/// as a parameter, so that `$0.rank < limit / 10` is `r."rank" < ?1` and uses an index.
///
/// The predicate's top-level conjuncts are translated one by one; what cannot be translated is
/// left to memory, and the translated conjuncts still narrow the rows, as long as no conjunct
/// before them may throw (a row the memory path would fail on must not be filtered away by a
/// later conjunct). A forced unwrap (`$0.bucket!.name == "x"`) is translated with its failure
/// case kept: the rows where it would throw stay in the narrowed set, and memory decides them.
///
/// Arithmetic on stored values runs in SQL with Swift's meaning, raising where Swift traps (an
/// integer overflow, a division by zero). A conjunct that may raise, and every conjunct after
/// it, is evaluated in order, behind the conjuncts before it (``QueryCondition/ordered(_:)``),
/// so that SQL raises on exactly the rows where Swift would trap; after a conjunct left to
/// memory, one that may raise stays in memory too.
struct PredicateTranslator {
    let model: ObjectModel
    let resolver: any QueryKeyPathResolver
    /// Whether relationship hops may be translated (off when unsaved changes to related objects
    /// cannot be accounted for).
    let allowsRelationships: Bool
    /// The SQL the condition will be written in: what it can answer exactly decides what stays
    /// in memory (see ``SQLDialect/comparesCharacters`` and ``SQLDialect/computesDoubles``).
    let dialect: SQLDialect

    /// What each predicate variable stands for.
    private var bindings: [PredicateExpressions.VariableID: QueryTerm] = [:]
    private var nextScope = 1
    /// The relationship path of each `EXISTS` scope.
    private var scopePaths: [Int: [QueryRelationshipStep]] = [:]
    /// How deep inside `EXISTS` scopes the translation is; forced unwraps there stay in memory.
    private var scopeDepth = 0
    /// The rows where a forced unwrap of the conjunct being translated fails.
    private var unwrapFailures: [QueryCondition] = []
    private var relationshipPaths: [[QueryRelationshipStep]] = []
    private var unknownKeyPaths: [UnknownKeyPath] = []

    /// Whether the conjunct being translated is a string test itself (not inside other logic),
    /// which a dialect that cannot compare characters may narrow by (see ``stringTest(_:_:_:)``).
    private(set) var conjunctIsStringTest = false
    /// Set when the conjunct's string test was written as a narrowing only, to be checked in memory.
    var narrowedStringTest = false

    init(model: ObjectModel, resolver: any QueryKeyPathResolver, allowsRelationships: Bool = true, dialect: SQLDialect = .sqlite) {
        self.model = model
        self.resolver = resolver
        self.allowsRelationships = allowsRelationships
        self.dialect = dialect
    }

    /// Translates `predicate` on rows of `entity`.
    mutating func translate<T>(_ predicate: Predicate<T>, on entity: EntityDescription) -> TranslatedPredicate {
        bindings = [predicate.variable.key: .row(.scope(0, entity))]
        var conjuncts: [any PredicateExpression<Bool>] = []
        Self.flattenConjunction(predicate.expression, into: &conjuncts)

        var narrowing: [QueryCondition] = []
        // From the first conjunct that may raise on: evaluated in order.
        var ordered: [QueryCondition] = []
        var earlierFailures: [QueryCondition] = []
        var inMemory: [InMemoryPart] = []
        var isExact = true
        for (index, conjunct) in conjuncts.enumerated() {
            unwrapFailures = []
            conjunctIsStringTest = !dialect.comparesCharacters && ExpressionKinds.isStringTest(conjunct)
            narrowedStringTest = false
            do throws(Untranslatable) {
                var condition = try self.condition(conjunct)
                if condition.mayRaise, !inMemory.isEmpty {
                    // SQL cannot evaluate it only where the conjuncts in memory before it hold.
                    throw Untranslatable(reason: "it may trap (an overflow, a division by zero) and comes after a part evaluated in memory")
                }
                // Rows where an earlier or this conjunct's unwrap fails must stay.
                let failures = earlierFailures + unwrapFailures
                if !failures.isEmpty { condition = .or(failures + [condition]) }
                if case .constant(true) = condition { continue }  // a captured test that holds
                if condition.mayRaise || !ordered.isEmpty {
                    ordered.append(condition)
                } else {
                    narrowing.append(condition)
                }
                if !unwrapFailures.isEmpty {
                    isExact = false
                    inMemory.append(InMemoryPart(expression: conjunct, reason: "its forced unwraps are checked in memory"))
                } else if narrowedStringTest {
                    isExact = false
                    inMemory.append(InMemoryPart(expression: conjunct, reason: Self.stringNarrowingReason))
                }
                earlierFailures += unwrapFailures
            } catch {
                isExact = false
                guard Self.mayThrow(conjunct) else {
                    inMemory.append(InMemoryPart(expression: conjunct, reason: error.reason))
                    continue
                }
                inMemory.append(InMemoryPart(expression: conjunct, reason: error.reason + "; it may throw, so nothing after it narrows"))
                for later in conjuncts[(index + 1)...] { inMemory.append(InMemoryPart(expression: later, reason: "after a conjunct that may throw")) }
                break
            }
        }
        if !ordered.isEmpty {
            // The conjuncts before stay on their own, for indexes; they guard the ordered part
            // again, as SQLite may test the parts of a `WHERE` in any order.
            narrowing.append(.ordered(narrowing + ordered))
        }
        let condition: QueryCondition? = switch narrowing.count {
        case 0: nil
        case 1: narrowing[0]
        default: .and(narrowing)
        }
        return TranslatedPredicate(
            condition: condition, isExact: isExact, relationshipPaths: relationshipPaths,
            unknownKeyPaths: unknownKeyPaths, inMemoryParts: inMemory, mayRaise: condition?.mayRaise ?? false)
    }

    /// The conjuncts of `expression` in evaluation order.
    private static func flattenConjunction(_ expression: any PredicateExpression<Bool>, into conjuncts: inout [any PredicateExpression<Bool>]) {
        if let conjunction = ExpressionKinds.conjuncts(of: expression) {
            flattenConjunction(conjunction.left, into: &conjuncts)
            flattenConjunction(conjunction.right, into: &conjuncts)
        } else {
            conjuncts.append(expression)
        }
    }

    /// `expression` as Foundation describes it, unless it holds a value whose description
    /// traps (a NaN `Date`): then its type.
    static func describe(_ expression: any PredicateExpression) -> String {
        func isPrintable(_ expression: any PredicateExpression) -> Bool {
            guard let known = expression as? any TranslatableExpression else { return false }
            if let constant = expression as? any CapturedValue, !constant.isPrintable { return false }
            return known.subexpressions.allSatisfy(isPrintable)
        }
        return isPrintable(expression) ? String(describing: expression) : String(describing: type(of: expression))
    }

    /// Whether evaluating `expression` may throw: a node we do not know may.
    static func mayThrow(_ expression: any PredicateExpression) -> Bool {
        guard let known = expression as? any TranslatableExpression else { return true }
        return known.throwsItself || known.subexpressions.contains { mayThrow($0) }
    }

    static let stringNarrowingReason = "PostgreSQL narrows the rows by Unicode scalars; the characters are compared in memory"

    // MARK: Terms

    /// Translates any expression; one that reads nothing of the object is worked out now.
    mutating func term(_ expression: any PredicateExpression) throws(Untranslatable) -> QueryTerm {
        let kind = ExpressionKinds.kind(of: expression)
        if !kind.isLeaf, ExpressionKinds.readsNoVariable(expression, kind: kind) {
            return try Self.constant(expression)
        }
        guard let translatable = kind.translatable else {
            throw Untranslatable(reason: "\(type(of: expression)) has no SQL form")
        }
        return try translatable.translate(expression, with: &self)
    }

    /// The value of `expression`, which reads nothing of the object, worked out once (with
    /// Swift's traps thrown) and bound as a parameter.
    static func constant<E: PredicateExpression>(_ expression: E) throws(Untranslatable) -> QueryTerm {
        let value: E.Output
        do {
            value = try ConstantEvaluation.value(of: expression)
        } catch {
            throw Untranslatable(reason: "a part that reads no property throws: \(error)")
        }
        if let bool = value as? Bool, E.Output.self == Bool.self { return .condition(.constant(bool)) }
        return try QueryConstant.term(for: value, of: E.Output.self)
    }

    /// Translates an expression whose value is a `Bool`.
    mutating func condition(_ expression: any PredicateExpression) throws(Untranslatable) -> QueryCondition {
        try condition(of: term(expression))
    }

    /// A term used where a `Bool` is expected.
    func condition(of term: QueryTerm) throws(Untranslatable) -> QueryCondition {
        switch term {
        case .condition(let condition): return condition
        case .value(let value) where value.type == .bool && !value.isOptional:
            if case .condition(let condition) = value { return condition }
            return .isTrue(value)
        default: throw Untranslatable(reason: "not a Bool")
        }
    }

    /// A term used as a scalar value.
    func value(of term: QueryTerm) throws(Untranslatable) -> QueryValue {
        switch term {
        case .value(let value): return value
        case .condition(.constant(let bool)): return .constant(.bool(bool), .bool)
        case .condition(let condition): return .condition(condition)
        default: throw Untranslatable(reason: "not a stored value")
        }
    }

    /// What a variable stands for.
    func variable(_ key: PredicateExpressions.VariableID) throws(Untranslatable) -> QueryTerm {
        guard let term = bindings[key] else { throw Untranslatable(reason: "a variable bound outside the predicate") }
        return term
    }

    /// Translates `body` with `key` bound to `term`.
    mutating func with<Result>(_ key: PredicateExpressions.VariableID, boundTo term: QueryTerm, _ body: (inout PredicateTranslator) throws(Untranslatable) -> Result) throws(Untranslatable) -> Result {
        let previous = bindings[key]
        bindings[key] = term
        defer { bindings[key] = previous }
        return try body(&self)
    }

    // MARK: Key paths

    /// `root[keyPath:]`, where the key path's value is of type `Output`.
    mutating func keyPath<Output>(_ keyPath: AnyKeyPath, kind: CollectionKeyPathKind?, on root: QueryTerm, output: Output.Type) throws(Untranslatable) -> QueryTerm {
        switch root {
        case .row(let row):
            return try property(keyPath, of: row, output: output)
        case .rows(let toMany):
            switch kind {
            case .isEmpty: return .condition(.not(anyTarget(toMany) { _ in .constant(true) }))
            case .count: return .value(.count(toMany))
            case nil: throw Untranslatable(reason: "\(keyPath) on a to-many relationship")
            }
        case .value(let value) where value.type == .string && kind == .isEmpty:
            return .condition(.compare(value, .equal, .constant(.string(""), .string)))
        default:
            throw Untranslatable(reason: "\(keyPath) is not a stored property")
        }
    }

    private mutating func property<Output>(_ keyPath: AnyKeyPath, of row: QueryRow, output: Output.Type) throws(Untranslatable) -> QueryTerm {
        guard let property = resolver.property(for: keyPath, in: row.entity) else {
            unknownKeyPaths.append(UnknownKeyPath(entity: row.entity, keyPath: keyPath))
            throw Untranslatable(reason: "\(keyPath) is not known as a stored property of \(row.entity.name)")
        }
        switch property.kind {
        case let .attribute(type, isOptional):
            guard let declared = AttributeType.of(Output.self), declared.type == type, declared.isOptional == isOptional else {
                throw Untranslatable(reason: "\(keyPath) reads \(Output.self), not the stored \(property)")
            }
            // JSON text is not a value SQL can compare as Swift compares the values it encodes.
            guard type != .codable else { throw Untranslatable(reason: "\(property.name) is a Codable value, array or set, compared in memory") }
            return .value(.property(row, property, QueryType(type)))
        case .relationship(let relationship):
            guard allowsRelationships else { throw Untranslatable(reason: "related objects have unsaved changes") }
            guard let destination = model.entity(named: relationship.destinationName) else {
                throw Untranslatable(reason: "\(relationship.destinationName) is not in the model")
            }
            let step = QueryRelationshipStep(source: row.entity, relationship: property.name, destination: destination)
            let path = self.path(of: row) + [step]
            relationshipPaths.append(path)
            if relationship.isToMany {
                return .rows(QueryToMany(owner: row, relationship: property, destination: destination))
            }
            let target = QueryRow.target(key: .property(row, property, .object(destination)), entity: destination)
            return .optionalRow(target)
        }
    }

    /// The relationships from the fetched row to `row`.
    private func path(of row: QueryRow) -> [QueryRelationshipStep] {
        switch row {
        case .scope(let scope, _):
            return scopePaths[scope] ?? []
        case .target(let key, let entity):
            var key = key
            while case .unwrapped(let inner) = key { key = inner }
            guard case .property(let owner, let property, _) = key else { return [] }
            return path(of: owner) + [QueryRelationshipStep(source: owner.entity, relationship: property.name, destination: entity)]
        }
    }

    // MARK: Relationships

    /// `EXISTS` over the targets of `toMany`, with the test `makeTest` makes on a target row.
    mutating func anyTarget(_ toMany: QueryToMany, _ makeTest: (QueryRow) -> QueryCondition) -> QueryCondition {
        let scope = openScope(for: toMany)
        return .anyTarget(toMany, scope: scope, makeTest(.scope(scope, toMany.destination)))
    }

    private mutating func openScope(for toMany: QueryToMany) -> Int {
        let scope = nextScope
        nextScope += 1
        let step = QueryRelationshipStep(source: toMany.owner.entity, relationship: toMany.relationship.name, destination: toMany.destination)
        scopePaths[scope] = path(of: toMany.owner) + [step]
        return scope
    }

    /// `EXISTS` over the targets of `toMany`, with `test` translated with `variable` bound to
    /// each target.
    mutating func anyTarget(_ toMany: QueryToMany, variable: PredicateExpressions.VariableID, test: any PredicateExpression) throws(Untranslatable) -> QueryCondition {
        let scope = openScope(for: toMany)
        scopeDepth += 1
        defer { scopeDepth -= 1 }
        let condition = try with(variable, boundTo: .row(.scope(scope, toMany.destination))) { translator throws(Untranslatable) in
            try translator.condition(test)
        }
        return .anyTarget(toMany, scope: scope, condition)
    }

    // MARK: Optionals

    /// `wrapped.flatMap { variable in transform }`.
    mutating func flatMap(_ wrapped: QueryTerm, variable: PredicateExpressions.VariableID, transform: any PredicateExpression) throws(Untranslatable) -> QueryTerm {
        let unwrapped: QueryTerm
        let isNil: QueryCondition
        switch wrapped {
        case .optionalRow(let row):
            unwrapped = .row(row)
            isNil = .not(.exists(row))
        case .value(let value) where value.isOptional:
            unwrapped = .value(.unwrapped(value))
            isNil = .isNil(value)
        case .nilLiteral:
            return .nilLiteral
        default:
            throw Untranslatable(reason: "flatMap on a value that is not optional")
        }
        let body = try with(variable, boundTo: unwrapped) { translator throws(Untranslatable) in try translator.term(transform) }
        switch body {
        case .row(let row), .optionalRow(let row):
            // A target reached through a missing row is missing too.
            guard case .target = row else { throw Untranslatable(reason: "flatMap to an object") }
            return .optionalRow(row)
        case .nilLiteral:
            return .nilLiteral
        default:
            let value = try value(of: body)
            // Reading a property of a missing target is already nil.
            if case .optionalRow(let source) = wrapped, case .property(.target(let key, _), _, _) = value,
               case .target(let sourceKey, _) = source, key.sameExpression(as: sourceKey) {
                return .value(value)
            }
            return .value(.unlessNil(isNil: isNil, value: value))
        }
    }

    /// `inner!`: translated as if present, with the rows where it is nil kept for memory, where
    /// the unwrap throws as it does without SQL.
    mutating func forceUnwrap(_ inner: QueryTerm) throws(Untranslatable) -> QueryTerm {
        guard scopeDepth == 0 else { throw Untranslatable(reason: "a forced unwrap inside a relationship test") }
        switch inner {
        case .optionalRow(let row):
            unwrapFailures.append(.not(.exists(row)))
            return .row(row)
        case .value(let value) where value.isOptional:
            unwrapFailures.append(.isNil(value))
            return .value(.unwrapped(value))
        default:
            throw Untranslatable(reason: "a forced unwrap of a value that is not optional")
        }
    }
}
