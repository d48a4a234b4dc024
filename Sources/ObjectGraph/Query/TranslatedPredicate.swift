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
    /// Whether ``condition`` may raise where Swift traps: then SQL must evaluate it on every
    /// row the predicate would see in memory, so the window is not cut in SQL.
    var mayRaise = false

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
