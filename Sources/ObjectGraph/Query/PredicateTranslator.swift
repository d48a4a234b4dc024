import Foundation

/// Finds the stored property behind a key path that a predicate or sort descriptor uses.
protocol QueryKeyPathResolver {
    /// The attribute or relationship of `entity` that `keyPath` reads, or `nil` if it reads
    /// anything else (a computed property) or is not known yet.
    func property(for keyPath: AnyKeyPath, in entity: EntityDescription) -> PropertyDescription?
}

/// One relationship a translated predicate follows.
struct QueryRelationshipStep: Hashable, Sendable {
    let source: EntityDescription
    let relationship: String
    let destination: EntityDescription
}

/// A key path a translation could not place, to be learned from an object of `entity`.
struct UnknownKeyPath: @unchecked Sendable {  // AnyKeyPath is immutable; it is not marked Sendable
    let entity: EntityDescription
    let keyPath: AnyKeyPath
}

/// What the translator made of a predicate.
struct TranslatedPredicate: @unchecked Sendable {  // only `unknownKeyPaths` holds non-Sendable (immutable) key paths
    /// Holds for every row the predicate matches or throws on; `nil` when nothing narrows.
    var condition: QueryCondition?
    /// Whether ``condition`` is the predicate exactly: no row needs evaluating in memory.
    var isExact: Bool
    /// The relationship paths ``condition`` follows from the fetched entity, each a list of hops:
    /// an unsaved change to an object at the end of one can change the answer for a row that
    /// has no change of its own.
    var relationshipPaths: [[QueryRelationshipStep]]
    /// Key paths the resolver did not know: once learned, translating again may do better.
    var unknownKeyPaths: [UnknownKeyPath]
    /// The conjuncts left to memory, with the reason.
    var inMemoryParts: [InMemoryPart]

    /// No predicate: every row.
    static let everything = TranslatedPredicate(condition: nil, isExact: true, relationshipPaths: [], unknownKeyPaths: [], inMemoryParts: [])
}

/// A conjunct of a predicate evaluated in memory, and why.
struct InMemoryPart: CustomStringConvertible {
    let expression: any PredicateExpression
    let reason: String

    /// The conjunct as Foundation writes it, then the reason; made only when asked for.
    var description: String { "\(PredicateTranslator.describe(expression)): \(reason)" }
}

/// Why a part of a predicate stays in memory.
struct Untranslatable: Error {
    let reason: String
}

/// Translates `#Predicate` expressions into ``QueryCondition``s that SQLite answers exactly as
/// Swift does. A pure function of the predicate, the model and the key-path resolver.
///
/// The predicate's top-level conjuncts are translated one by one; what cannot be translated is
/// left to memory, and the translated conjuncts still narrow the rows, as long as no conjunct
/// before them may throw (a row the memory path would fail on must not be filtered away by a
/// later conjunct). A forced unwrap (`$0.bucket!.name == "x"`) is translated with its failure
/// case kept: the rows where it would throw stay in the narrowed set, and memory decides them.
struct PredicateTranslator {
    let model: ObjectModel
    let resolver: any QueryKeyPathResolver
    /// Whether relationship hops may be translated (off when unsaved changes to related objects
    /// cannot be accounted for).
    let allowsRelationships: Bool

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

    init(model: ObjectModel, resolver: any QueryKeyPathResolver, allowsRelationships: Bool = true) {
        self.model = model
        self.resolver = resolver
        self.allowsRelationships = allowsRelationships
    }

    /// Translates `predicate` on rows of `entity`.
    mutating func translate<T>(_ predicate: Predicate<T>, on entity: EntityDescription) -> TranslatedPredicate {
        bindings = [predicate.variable.key: .row(.scope(0, entity))]
        var conjuncts: [any PredicateExpression<Bool>] = []
        Self.flattenConjunction(predicate.expression, into: &conjuncts)

        var narrowing: [QueryCondition] = []
        var earlierFailures: [QueryCondition] = []
        var inMemory: [InMemoryPart] = []
        var isExact = true
        for (index, conjunct) in conjuncts.enumerated() {
            unwrapFailures = []
            do {
                let condition = try self.condition(conjunct)
                // Rows where an earlier or this conjunct's unwrap fails must stay.
                let failures = earlierFailures + unwrapFailures
                narrowing.append(failures.isEmpty ? condition : .or(failures + [condition]))
                if !unwrapFailures.isEmpty {
                    isExact = false
                    inMemory.append(InMemoryPart(expression: conjunct, reason: "its forced unwraps are checked in memory"))
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
        let condition: QueryCondition? = switch narrowing.count {
        case 0: nil
        case 1: narrowing[0]
        default: .and(narrowing)
        }
        return TranslatedPredicate(
            condition: condition, isExact: isExact, relationshipPaths: relationshipPaths,
            unknownKeyPaths: unknownKeyPaths, inMemoryParts: inMemory)
    }

    /// The conjuncts of `expression` in evaluation order.
    private static func flattenConjunction(_ expression: any PredicateExpression<Bool>, into conjuncts: inout [any PredicateExpression<Bool>]) {
        if let conjunction = expression as? any ConjunctionExpression {
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

    // MARK: Terms

    /// Translates any expression.
    mutating func term(_ expression: any PredicateExpression) throws(Untranslatable) -> QueryTerm {
        guard let translatable = expression as? any TranslatableExpression else {
            throw Untranslatable(reason: "\(type(of: expression)) has no SQL form")
        }
        return try translatable.translate(with: &self)
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

    // MARK: Comparisons

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
        guard left.type == right.type, left.type != .data, left.type != .bool else {
            throw Untranslatable(reason: "an ordering of values that SQL does not order as Swift does")
        }
        return .condition(.compare(left, op, right))
    }

    /// `sequence.contains(element)`.
    mutating func contains(_ sequence: QueryTerm, _ element: QueryTerm) throws(Untranslatable) -> QueryTerm {
        switch (sequence, element) {
        case (.list(let values, let hasNil), .value(let value)):
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

/// What a translated sub-expression is.
enum QueryTerm {
    /// A model object that is there (the fetched row, a to-many element, an unwrapped target).
    case row(QueryRow)
    /// A to-one relationship's target, or nil.
    case optionalRow(QueryRow)
    /// A to-many relationship.
    case rows(QueryToMany)
    /// A scalar.
    case value(QueryValue)
    /// A `Bool`.
    case condition(QueryCondition)
    /// A captured model object (`nil` ID when it belongs to no context).
    case object(ObjectID?)
    /// A captured sequence of stored values, without its nils, and whether it had any.
    case list([PropertyValue], hasNil: Bool)
    /// A range of values; a `nil` bound is open.
    case range(lower: QueryValue?, upper: QueryValue?, closed: Bool)
    /// `nil`.
    case nilLiteral
}

/// The key paths on collections that `#Predicate` names.
enum CollectionKeyPathKind {
    case isEmpty, count
}

/// Implemented by the `PredicateExpressions` types the translator knows.
protocol TranslatableExpression {
    /// The expression's translation.
    func translate(with translator: inout PredicateTranslator) throws(Untranslatable) -> QueryTerm
    /// Whether evaluating this node can throw by itself (a forced unwrap can).
    var throwsItself: Bool { get }
    /// The expressions this one evaluates.
    var subexpressions: [any PredicateExpression] { get }
}

extension TranslatableExpression {
    var throwsItself: Bool { false }
}

/// A captured value, seen without its type.
protocol CapturedValue {
    /// Whether describing it is safe.
    var isPrintable: Bool { get }
}

/// A conjunction, seen without its generic parameters.
protocol ConjunctionExpression {
    var left: any PredicateExpression<Bool> { get }
    var right: any PredicateExpression<Bool> { get }
}

extension QueryValue {
    /// Whether two values are the same expression (used to see that a `flatMap` reads a
    /// property of the very target it unwrapped).
    func sameExpression(as other: QueryValue) -> Bool {
        switch (self, other) {
        case let (.property(rowA, propertyA, _), .property(rowB, propertyB, _)):
            propertyA.index == propertyB.index && propertyA.name == propertyB.name && rowA.sameRow(as: rowB)
        case let (.unwrapped(a), _): a.sameExpression(as: other)
        case let (_, .unwrapped(b)): sameExpression(as: b)
        default: false
        }
    }
}

extension QueryRow {
    func sameRow(as other: QueryRow) -> Bool {
        switch (self, other) {
        case let (.scope(a, entityA), .scope(b, entityB)): a == b && entityA === entityB
        case let (.target(keyA, entityA), .target(keyB, entityB)): entityA === entityB && keyA.sameExpression(as: keyB)
        default: false
        }
    }
}
