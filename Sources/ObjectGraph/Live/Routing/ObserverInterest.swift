import Foundation

/// What one live observer (a fetched-results controller, and so every publisher and observable
/// built on one) must hear about when its context changes: which changed objects can concern it.
///
/// A changed object concerns the observer when the observer holds it (it is in its results), or
/// when it may start to match. Who may start to match is narrowed by what the predicate compares:
/// when every match has one of a few values of one property (`$0.username == name`,
/// `names.contains($0.city)`, `$0.isDone`), only objects with such a value are candidates, found
/// by a lookup by value. An entity the predicate does not narrow so is *scanned*: each of its
/// changed objects goes to the observer, which evaluates the predicate on it.
struct ObserverInterest: Sendable {
    /// Every entity the observer follows: merges bring in objects of these only.
    let entityNames: Set<String>
    /// The entities whose every changed object goes to the observer.
    let scannedEntityNames: Set<String>
    /// For the entities it follows and does not scan: the property every match has one of the
    /// values of (by ``PropertyValue/lookupKey``).
    let lookups: [CandidateLookup]

    /// Whether the observer tells which objects it holds (see ``LiveObserverIndex/hold(_:by:)``):
    /// needed when some entity is narrowed by a lookup, for a held object that stops matching.
    var followsHeldObjects: Bool { !lookups.isEmpty }

    /// An observer that sees every changed object of `entityNames`.
    init(scanning entityNames: Set<String>) {
        self.entityNames = entityNames
        scannedEntityNames = entityNames
        lookups = []
    }

    /// An observer of `entityNames` (concrete entities, subentities included) whose matches all
    /// have one of `candidates.values` in the property `candidates.property`; `alsoScanned`
    /// entities (reached by refreshing key paths) are scanned whatever the predicate says.
    init(following entityNames: Set<String>, candidates: CandidateValues?, alsoScanned: Set<String>, model: ObjectModel) {
        self.entityNames = entityNames.union(alsoScanned)
        var scanned = alsoScanned
        var lookups: [CandidateLookup] = []
        for name in entityNames.sorted() where !alsoScanned.contains(name) {
            guard let candidates, let entity = model.entity(named: name),
                  let property = entity.property(named: candidates.propertyName) else {
                scanned.insert(name)
                continue
            }
            lookups.append(CandidateLookup(entityName: name, slot: property.index, values: candidates.values))
        }
        scannedEntityNames = scanned
        self.lookups = lookups
    }
}

/// The values of one property of one concrete entity that admit an object as a candidate.
struct CandidateLookup: Hashable, Sendable {
    let entityName: String
    let slot: Int
    /// Lookup keys (``PropertyValue/lookupKey``).
    let values: Set<PropertyValue>
}

/// A property of the fetched entity and the values that every object a predicate matches (or
/// throws on) has in it: read off the predicate's translation (see ``find(in:)``).
struct CandidateValues: Sendable {
    let propertyName: String
    /// Lookup keys (``PropertyValue/lookupKey``); never empty.
    let values: Set<PropertyValue>

    /// The narrowest such property among the top-level conjuncts of `condition` (which holds for
    /// every row the predicate matches or throws on): an equality with a constant, membership in
    /// a list of constants, a `Bool` property tested, `== nil`, or a disjunction of those on one
    /// property. `nil` when no conjunct is of that shape.
    static func find(in condition: QueryCondition?) -> CandidateValues? {
        guard let condition else { return nil }
        let conjuncts: [QueryCondition] = if case .and(let inner) = condition { inner } else { [condition] }
        var best: CandidateValues?
        for conjunct in conjuncts {
            guard let found = values(of: conjunct) else { continue }
            if let current = best, !found.isNarrower(than: current) { continue }
            best = found
        }
        return best
    }

    /// Fewer values look up fewer objects; a `Bool` property splits the objects in two at best,
    /// so any other property is preferred to it.
    private func isNarrower(than other: CandidateValues) -> Bool {
        let (isBool, otherIsBool) = (values.allSatisfy(\.isBool), other.values.allSatisfy(\.isBool))
        if isBool != otherIsBool { return otherIsBool }
        return values.count < other.values.count
    }

    /// The property and values of one condition of a shape a lookup answers.
    private static func values(of condition: QueryCondition) -> CandidateValues? {
        switch condition {
        case .compare(let lhs, .equal, let rhs):
            if let name = propertyName(lhs), case .constant(let value, _) = rhs { return make(name, [value]) }
            if let name = propertyName(rhs), case .constant(let value, _) = lhs { return make(name, [value]) }
            return nil
        case .isIn(let value, let list):
            return propertyName(value).flatMap { make($0, list) }
        case .isNil(let value):
            return propertyName(value).flatMap { make($0, [.null]) }
        case .isTrue(let value):
            return propertyName(value).flatMap { make($0, [.bool(true)]) }
        case .not(.isTrue(let value)):
            return propertyName(value).flatMap { make($0, [.bool(false)]) }
        case .or(let alternatives):
            var name: String?
            var values: Set<PropertyValue> = []
            for alternative in alternatives {
                guard let found = self.values(of: alternative), name == nil || name == found.propertyName else { return nil }
                name = found.propertyName
                values.formUnion(found.values)
            }
            return name.map { CandidateValues(propertyName: $0, values: values) }
        default:
            return nil
        }
    }

    /// The values' lookup keys; `nil` if one has none (then the lookup could miss a match).
    /// Values with no match at all (NaN) are dropped: an object can never be one of them.
    private static func make(_ name: String, _ values: [PropertyValue]) -> CandidateValues? {
        var keys: Set<PropertyValue> = []
        for value in values {
            switch value {
            case .double(let number) where number.isNaN: continue
            case .date(let date) where date.timeIntervalSinceReferenceDate.isNaN: continue
            default: break
            }
            guard let key = value.lookupKey else { return nil }
            keys.insert(key)
        }
        return keys.isEmpty ? nil : CandidateValues(propertyName: name, values: keys)
    }

    /// The name of a stored property of the fetched row whose equality `==` decides as
    /// ``PropertyValue/lookupKey`` does.
    private static func propertyName(_ value: QueryValue) -> String? {
        guard case .property(.scope(0, _), let property, let type) = value else { return nil }
        switch type {
        case .bool, .integer, .double, .date, .string, .data, .uuid, .object: return property.name
        // URLs and decimals compare their stored text, Codable values their JSON: not by value.
        case .url, .decimal, .codable: return nil
        }
    }
}

extension PropertyValue {
    fileprivate var isBool: Bool {
        if case .bool = self { true } else { false }
    }

    /// The key under which a lookup by value files this value: two values that `#Predicate`'s
    /// `==` finds equal have the same key (`-0.0` and `0.0` do; `NaN` has a key but no predicate
    /// constant ever has it). `nil` for relationship collections, which no lookup follows.
    var lookupKey: PropertyValue? {
        switch self {
        case .double(let number): return number == 0 ? .double(0) : self
        case .date(let date): return date.timeIntervalSinceReferenceDate == 0 ? .date(Date(timeIntervalSinceReferenceDate: 0)) : self
        case .objects, .orderedObjects, .unloaded: return nil
        case .null, .bool, .integer, .string, .data, .uuid, .object: return self
        }
    }
}

extension ManagedObjectContext {
    /// The candidates of `request`'s predicate (see ``CandidateValues/find(in:)``), read off its
    /// translation; `nil` when it has no predicate or none of the right shape. On the queue.
    func candidateValues<T: ManagedObject>(of request: FetchRequest<T>) -> CandidateValues? {
        guard let predicate = request.predicate, let entity = model.entity(for: T.self) else { return nil }
        let resolver = LayoutKeyPathResolver(model: model)
        func translate() -> TranslatedPredicate {
            var translator = PredicateTranslator(model: model, resolver: resolver)
            return translator.translate(predicate, on: entity)
        }
        var translated = translate()
        // Key paths not met yet are learned as a fetch learns them (each is tried once).
        while (try? learnKeyPaths(translated.unknownKeyPaths)) == true { translated = translate() }
        return CandidateValues.find(in: translated.condition)
    }
}
