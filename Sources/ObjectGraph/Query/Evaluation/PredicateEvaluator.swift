import Foundation
import Streams
import Synchronization

/// What a compiled predicate reads while it evaluates one object: the object, and the values of
/// the variables the predicate binds inside itself (`flatMap`, `contains(where:)`, `filter`).
struct EvaluationFrame {
    /// The object the predicate is evaluated on; `nil` for a part that reads no object (a
    /// constant the translator works out before the query).
    let object: ManagedObject?
    /// Each bound variable's current value, by the index the compiler gave it; `nil` outside
    /// its scope.
    var locals: [Any?]
}

/// One compiled node: its value for the object of a frame.
typealias Evaluation<Output> = (inout EvaluationFrame) throws -> Output

/// A `#Predicate` compiled once into closures, then evaluated on many objects: the in-memory
/// path of every fetch, of ``FetchRequest/matches(_:)`` and of live results.
///
/// It gives Foundation's answers with two differences, both for the SQL path to match:
/// - where Swift traps (an integer overflow, a division by zero, a reversed range), it throws a
///   ``PredicateTrap``, so that a fetch fails with
///   ``ObjectGraphError/predicateFailed(entity:message:)`` instead of stopping the process;
/// - it is faster: a key path to a stored attribute of the object reads the object's slot (what
///   the property's getter returns, without the key path machinery), variables are array
///   slots instead of a dictionary of existentials, and nothing is looked up per object.
///
/// Nodes it does not know (`PredicateExpressions` types not listed in
/// `PredicateEvaluator+Nodes.swift`, and custom ones) are evaluated by Foundation, with the
/// variables in scope bound as Foundation expects; arithmetic inside them traps as it would.
struct CompiledPredicate<T: ManagedObject> {
    private let test: Evaluation<Bool>
    private let localCount: Int

    /// Compiles `predicate`; with an `entity` and a `resolver`, key paths to stored attributes
    /// of `entity` read slots.
    init(_ predicate: Predicate<T>, entity: EntityDescription? = nil, resolver: (any QueryKeyPathResolver)? = nil) {
        var compiler = PredicateCompiler(entity: entity, resolver: resolver)
        compiler.declareRow(predicate.variable)
        test = compiler.compile(predicate.expression)
        localCount = compiler.localCount
    }

    /// Whether `object` matches; throws what the predicate throws (a ``PredicateTrap``, or
    /// Foundation's `PredicateError`).
    func evaluate(_ object: T) throws -> Bool {
        var frame = EvaluationFrame(object: object, locals: localCount == 0 ? [] : Array(repeating: nil, count: localCount))
        return try test(&frame)
    }
}

/// Evaluates a part of a predicate that reads no object, once: how the translator works out
/// captured values, arithmetic and comparisons on them before the query.
enum ConstantEvaluation {
    static func value<E: PredicateExpression>(of expression: E) throws -> E.Output {
        var compiler = PredicateCompiler(entity: nil, resolver: nil)
        let evaluation = compiler.compile(expression)
        var frame = EvaluationFrame(object: nil, locals: Array(repeating: nil, count: compiler.localCount))
        return try evaluation(&frame)
    }
}

/// Compiles predicate nodes into ``Evaluation``s.
struct PredicateCompiler {
    /// The stored attributes of this entity are read from slots (with a ``resolver``).
    let entity: EntityDescription?
    let resolver: (any QueryKeyPathResolver)?
    /// The predicate's own variable: the object.
    private(set) var rowVariable: PredicateExpressions.VariableID?
    private var localIndex: [PredicateExpressions.VariableID: Int] = [:]
    private(set) var localCount = 0
    /// Puts each variable declared so far into Foundation's bindings, for nodes Foundation
    /// evaluates.
    private var binders: [(inout PredicateBindings, EvaluationFrame) -> Void] = []

    init(entity: EntityDescription?, resolver: (any QueryKeyPathResolver)?) {
        self.entity = entity
        self.resolver = resolver
    }

    /// `expression` compiled: natively when its type is known, else evaluated by Foundation.
    mutating func compile<E: PredicateExpression>(_ expression: E) -> Evaluation<E.Output> {
        guard let kind = ExpressionKinds.evaluable(expression) else { return foundation(expression) }
        // The kind compiles `expression` as its own type, whose output is `E.Output`.
        return kind.compileErased(expression, with: &self) as! Evaluation<E.Output>
    }

    /// `expression` evaluated by Foundation, with the variables in scope bound.
    func foundation<E: PredicateExpression>(_ expression: E) -> Evaluation<E.Output> {
        let binders = binders
        return { frame in
            var bindings = PredicateBindings()
            for bind in binders { bind(&bindings, frame) }
            return try expression.evaluate(bindings)
        }
    }

    // MARK: Variables

    mutating func declareRow<Row>(_ variable: PredicateExpressions.Variable<Row>) {
        rowVariable = variable.key
        binders.append { bindings, frame in
            if let object = frame.object as? Row { bindings[variable] = object }
        }
    }

    /// Gives `variable`, bound by a node inside the predicate, a slot in the frame.
    mutating func declareLocal<Value>(_ variable: PredicateExpressions.Variable<Value>) -> Int {
        let index = localCount
        localCount += 1
        localIndex[variable.key] = index
        binders.append { bindings, frame in
            if let value = frame.locals[index] { bindings[variable] = .some(value as! Value) }
        }
        return index
    }

    func variable<Value>(_ variable: PredicateExpressions.Variable<Value>) -> Evaluation<Value> {
        if variable.key == rowVariable {
            return { frame in
                guard let object = frame.object as? Value else { throw PredicateError.undefinedVariable }
                return object
            }
        }
        guard let index = localIndex[variable.key] else { return { _ in throw PredicateError.undefinedVariable } }
        return { frame in
            guard let value = frame.locals[index] else { throw PredicateError.undefinedVariable }
            return value as! Value
        }
    }

    /// The slot `keyPath` reads when `root` is the object and the key path is a stored
    /// attribute of the compiled entity, of type `Value`.
    func rowSlot<Value>(root: some PredicateExpression, keyPath: AnyKeyPath, as type: Value.Type) -> Int? {
        guard let rowVariable, let entity, let resolver, (root as? any VariableReference)?.variableKey == rowVariable,
              let property = resolver.property(for: keyPath, in: entity),
              case .attribute = property.kind else { return nil }
        return property.index
    }
}

/// A variable node, seen without its type.
protocol VariableReference {
    var variableKey: PredicateExpressions.VariableID { get }
}

extension PredicateExpressions.Variable: VariableReference {
    var variableKey: PredicateExpressions.VariableID { key }
}

/// Implemented by the `PredicateExpressions` nodes the evaluator compiles itself.
protocol EvaluableExpression: PredicateExpression {
    func compile(with compiler: inout PredicateCompiler) -> Evaluation<Output>
}

extension EvaluableExpression {
    /// `expression`, known to be of this type, compiled; an ``Evaluation`` of its output.
    static func compileErased(_ expression: any PredicateExpression, with compiler: inout PredicateCompiler) -> Any {
        (expression as! Self).compile(with: &compiler)
    }
}

/// The compiled predicate of a request, made on first use and shared by the copies of the
/// request (a new predicate gets a new cache). Set once, read without a lock.
final class CompiledPredicateCache<T: ManagedObject>: Sendable {
    /// The compiled predicate, immutable once made.
    private final class Compiled: @unchecked Sendable {  // immutable; its closures only read what the predicate captured
        let predicate: CompiledPredicate<T>
        init(_ predicate: CompiledPredicate<T>) { self.predicate = predicate }
    }

    private let compiled = AtomicLazyReference<Compiled>()

    /// The compiled form of `predicate`; stored attributes read from slots once `object` says
    /// which model it belongs to.
    func compiled(_ predicate: Predicate<T>, for object: T) -> CompiledPredicate<T> {
        if let compiled = compiled.load() { return compiled.predicate }
        var entity: EntityDescription?
        var resolver: (any QueryKeyPathResolver)?
        if let model = object.managedObjectContext?.model, let found = model.entity(for: T.self) {
            entity = found
            resolver = LayoutKeyPathResolver(model: model)
        }
        return compiled.storeIfNil(Compiled(CompiledPredicate(predicate, entity: entity, resolver: resolver))).predicate
    }
}
