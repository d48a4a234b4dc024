/// Works out one ``MigrationStep``: how to bring a file whose schema is `old` to a model whose
/// description is `new`, from the descriptions alone (nothing is read or written).
///
/// Entities and properties are paired by name, then by the original name the model declares
/// (``NameMatcher``). Each new property then keeps its old storage (same type, a wider one, a
/// rename, a relationship that keeps its table) or gets new storage (added, or replaced by a
/// conversion a stage declares). Whatever cannot be inferred and no stage converts is refused,
/// all at once, with the entity, the property, both types and the fix; so is a removal when the
/// model's version is not above the file's (an older app could not tell it from a newer file's
/// addition).
final class MigrationPlanner {
    struct Context {
        /// The version the file is at before the step, and the step's model version.
        let fileVersion: Int
        let modelVersion: Int
        /// The stage the step belongs to, if any.
        let stage: String?
    }

    let old: StoredSchema
    let new: StoredSchema
    let oldLookup: SchemaLookup
    let newLookup: SchemaLookup
    let allowsRemovals: Bool
    let conversions: Set<String>
    let context: Context

    var refusals: [RefusedChange] = []
    /// New entity name → old entity name.
    var oldEntityName: [String: String] = [:]
    /// New entity name → (new property name → old property name), declared properties.
    var oldPropertyName: [String: [String: String]] = [:]
    /// Old entities refused or converted as a whole: not reported again as removed.
    var handledOldEntities: Set<String> = []

    /// For each new column property (`Entity.property`): the old column it keeps, if any.
    var keptColumn: [String: String] = [:]
    /// New required attributes whose old values may be `nil` (a conversion fills them).
    var fillsNulls: [String] = []
    var checks: [DataCheck] = []
    var valueChecks: [ValueCheck] = []
    /// For each new join table (as the new model names it): the old table it keeps, and for
    /// each side that claimed it (`Entity.property`), the column holding that side's objects.
    var joinClaims: [String: [(oldTable: String, side: String, ownColumn: String)]] = [:]
    /// Join tables filled from the old to-one column of a one-to-many that loses it.
    var foreignKeyCopies: [(joinTable: String, ownColumn: String, otherColumn: String, table: String, column: String, scope: [String]?)] = []
    /// New to-one columns filled from an old join table (a to-many that gains a to-one inverse).
    var joinFills: [(toOne: String, table: String, ownColumn: String, otherColumn: String)] = []

    init(old: StoredSchema, new: StoredSchema, allowsRemovals: Bool, conversions: Set<String>, context: Context) {
        self.old = old
        self.new = new
        oldLookup = SchemaLookup(old)
        newLookup = SchemaLookup(new)
        self.allowsRemovals = allowsRemovals
        self.conversions = conversions
        self.context = context
    }

    /// The changes that cannot be made by themselves, all at once.
    struct Refusals: Error {
        let changes: [RefusedChange]
    }

    func plan() throws(Refusals) -> MigrationStep {
        matchEntities()
        matchProperties()
        for entity in new.entities { classifyProperties(of: entity) }
        resolveJoinFills()
        checkRemovals()
        let names = assignNames()
        let step = operations(names)
        guard refusals.isEmpty else { throw Refusals(changes: refusals) }
        return step
    }

    // MARK: Matching

    private func matchEntities() {
        let match = NameMatcher.match(new.entities.map { .init(name: $0.name, originalName: $0.originalName) }, old: old.entities.map(\.name))
        oldEntityName = match.oldName
        for (item, original) in match.ambiguous {
            refuse(item, nil, stored: "entities '\(item)' and '\(original)'", model: "'\(item)' (originally '\(original)')",
                   reason: "the file may be from before or after the rename",
                   fix: "remove originalEntityName if '\(item)' is the entity the file has, or give the renamed entity a name the file does not use")
            handledOldEntities.insert(original)
        }
        // Roots first, so that an entity refused or converted takes its sub-entities with it.
        for entity in new.entities.sorted(by: { newLookup.lineage(of: $0.name).count < newLookup.lineage(of: $1.name).count }) {
            guard let oldName = oldEntityName[entity.name], let oldEntity = oldLookup.entity(named: oldName) else { continue }
            let expected = entity.superentity.map { oldEntityName[$0] ?? "(\($0), new)" }
            guard expected != oldEntity.superentity else { continue }
            oldEntityName[entity.name] = nil
            handledOldEntities.insert(oldName)
            guard !conversions.contains(entity.name) else { continue }
            refuse(entity.name, nil, stored: oldEntity.superentity.map { "a sub-entity of \($0)" } ?? "an entity of its own",
                   model: entity.superentity.map { "a sub-entity of \($0)" } ?? "an entity of its own",
                   reason: "an entity that changes hierarchy changes table",
                   fix: stageFix(converting: entity.name, "that copies its objects"))
        }
    }

    private func matchProperties() {
        for (newName, oldName) in oldEntityName {
            let entity = newLookup.entity(named: newName)!
            let oldEntity = oldLookup.entity(named: oldName)!
            let match = NameMatcher.match(entity.properties.map { .init(name: $0.name, originalName: $0.originalName) }, old: oldEntity.properties.map(\.name))
            oldPropertyName[newName] = match.oldName
            for (item, original) in match.ambiguous {
                refuse(newName, item, stored: "'\(item)' and '\(original)'", model: "'\(item)' (originally '\(original)')",
                       reason: "the file may be from before or after the rename",
                       fix: "remove originalName: \"\(original)\" if '\(item)' is the property the file has, or give the renamed property a name the file does not use")
            }
        }
    }

    /// The old declared property a new one (declared by `entity`) was paired with.
    func oldProperty(_ name: String, declaredBy entity: String) -> StoredProperty? {
        guard let oldEntity = oldEntityName[entity], let oldName = oldPropertyName[entity]?[name] else { return nil }
        return oldLookup.entity(named: oldEntity)?.property(named: oldName)
    }

    /// The old property that a property of the new model, reached from `entity` (inherited
    /// ones too), was paired with, and its old declaring entity.
    func oldReference(_ name: String, of entity: String) -> (entity: String, property: StoredProperty)? {
        guard let (declaring, _) = newLookup.property(name, of: entity),
              let property = oldProperty(name, declaredBy: declaring.name) else { return nil }
        return (oldEntityName[declaring.name]!, property)
    }

    // MARK: Classifying

    private func classifyProperties(of entity: StoredEntity) {
        for property in entity.properties {
            let key = entity.name + "." + property.name
            guard let old = oldProperty(property.name, declaredBy: entity.name) else { continue }
            let converting = conversions.contains(key)
            switch (old.kind, property.kind) {
            case (.attribute, .attribute):
                classifyAttribute(property, of: entity, old: old, converting: converting)
            case (.toOne, .toOne):
                if destinationMatches(property, old) {
                    keptColumn[key] = old.column
                } else if !converting {
                    refuseRelationship(property, of: entity, old: old, reason: "its destination changed")
                }
            case (.toMany, .toMany):
                if destinationMatches(property, old) {
                    classifyToMany(property, of: entity, old: old, converting: converting)
                } else if !converting {
                    refuseRelationship(property, of: entity, old: old, reason: "its destination changed")
                }
            default:
                if !converting { refuseRelationship(property, of: entity, old: old, reason: "an attribute, a to-one and a to-many are stored differently") }
            }
        }
    }

    private func classifyAttribute(_ property: StoredProperty, of entity: StoredEntity, old: StoredProperty, converting: Bool) {
        let key = entity.name + "." + property.name
        let oldType = StoredAttributeType(name: old.type ?? "")
        let newType = StoredAttributeType(name: property.type ?? "")
        let conversion = oldType.conversion(to: newType)
        let becomesRequired = old.isOptional == true && property.isOptional != true
        if conversion == .notInferable {
            if !converting {
                refuse(entity.name, property.name, stored: old.typeDescription, model: property.typeDescription,
                       reason: "a value of \(oldType.displayName) does not become one of \(newType.displayName) by itself",
                       fix: stageFix(converting: key, "that sets the new values from the old ones") + ", or keep the type \(oldType.displayName)")
            }
            return
        }
        if becomesRequired && !converting {
            refuse(entity.name, property.name, stored: old.typeDescription, model: property.typeDescription,
                   reason: "objects without a value would need one",
                   fix: stageFix(converting: key, "that gives every object a value") + ", or keep it optional")
            return
        }
        if case .keptIfWithin(let range) = conversion, let column = old.column, let oldEntity = oldEntityName[entity.name] {
            checks.append(DataCheck(
                query: .valueOutside(table: oldLookup.entity(named: oldEntity)!.table, column: column, range: range,
                                     scope: SchemaDefinitions.scopeRowNames(of: oldEntity, in: oldLookup)),
                refusal: RefusedChange(
                    entity: entity.name, property: property.name, stored: old.typeDescription, model: property.typeDescription,
                    reason: "an object holds %@, which \(newType.displayName) cannot hold",
                    fix: "keep a type wide enough, or " + stageFix(converting: key, "that decides what such values become"))))
        }
        keptColumn[key] = old.column
        if becomesRequired { fillsNulls.append(key) }
        // A type whose shape changed (an enum's cases, a Codable type's keys) may not read every
        // stored value: each is checked before the step writes anything.
        if property.shape != old.shape, let check = property.valueCheck, let column = old.column, let oldEntity = oldEntityName[entity.name],
           let table = oldLookup.entity(named: oldEntity)?.table, let storedType = StoredAttributeType(name: old.type ?? "").attributeType {
            valueChecks.append(ValueCheck(
                entity: entity.name, property: property.name, table: table, column: column,
                scope: SchemaDefinitions.scopeRowNames(of: oldEntity, in: oldLookup), storedType: storedType,
                typeName: check.type, failure: check.failure))
        }
    }

    private func destinationMatches(_ property: StoredProperty, _ old: StoredProperty) -> Bool {
        property.destination.flatMap { oldEntityName[$0] } == old.destination
    }

    private func classifyToMany(_ property: StoredProperty, of entity: StoredEntity, old: StoredProperty, converting: Bool) {
        let key = entity.name + "." + property.name
        switch (oldLookup.toManyLayout(of: old), newLookup.toManyLayout(of: property)) {
        case (.inverseColumn?, .inverseColumn?):
            // The to-one inverse keeps the links: it must be the same relationship.
            guard let inverse = property.inverse, let mapped = oldReference(inverse, of: property.destination!), mapped.property.name == old.inverse else {
                if !converting { refuseRelationship(property, of: entity, old: old, reason: "its to-one inverse, which holds the links, changed") }
                return
            }
        case let (.joinTable(table, ownColumn, _)?, .joinTable(joinTable, _, _)?):
            guard joinPartnersAgree(property, of: entity, old: old) else {
                if !converting { refuseRelationship(property, of: entity, old: old, reason: "it and its inverse would need different join tables") }
                return
            }
            joinClaims[joinTable, default: []].append((table, key, ownColumn))
        case let (.inverseColumn(table, column, destination)?, .joinTable(joinTable, ownColumn, otherColumn)?):
            // A one-to-many that loses its to-one: the links move from the column to a table.
            foreignKeyCopies.append((joinTable, ownColumn, otherColumn, table, column, scopeNames(of: destination, in: oldLookup)))
        case let (.joinTable(table, ownColumn, otherColumn)?, .inverseColumn?):
            // A to-many that gains a to-one inverse: the column is filled from the table, if
            // every target has one owner.
            let (declaring, inverse) = newLookup.property(property.inverse!, of: property.destination!)!
            joinFills.append((declaring.name + "." + inverse.name, table, ownColumn, otherColumn))
            checks.append(DataCheck(
                query: .targetOfSeveralOwners(joinTable: table, targetColumn: otherColumn),
                refusal: RefusedChange(
                    entity: entity.name, property: property.name, stored: old.typeDescription + " (many-to-many)",
                    model: property.typeDescription + " with the to-one inverse \(property.inverse!)",
                    reason: "the object with key %@ is in the relationship of more than one \(entity.name), and a to-one holds one",
                    fix: "keep the inverse to-many, or " + stageFix(converting: key, "that decides which one keeps it"))))
        default:
            if !converting { refuseRelationship(property, of: entity, old: old, reason: "its storage changed") }
        }
    }

    /// Whether a to-many kept in its join table keeps a partner the table can serve: the same
    /// inverse as before, or a side that is new or gone.
    private func joinPartnersAgree(_ property: StoredProperty, of entity: StoredEntity, old: StoredProperty) -> Bool {
        let newPartner = property.inverse.flatMap { name in newLookup.property(name, of: property.destination!) }.flatMap {
            $0.property.kind == .toMany ? $0 : nil
        }
        let oldPartner = old.inverse.flatMap { name in oldLookup.property(name, of: old.destination!) }.flatMap {
            $0.property.kind == .toMany ? $0 : nil
        }
        if let newPartner, let pairedOld = oldProperty(newPartner.property.name, declaredBy: newPartner.declaring.name) {
            // A partner that existed: it must have been the old partner, or had no table of its own.
            if let oldPartner {
                return pairedOld.name == oldPartner.property.name && oldEntityName[newPartner.declaring.name] == oldPartner.declaring.name
            }
            return pairedOld.kind != .toMany
        }
        return true
    }

    /// New to-one columns filled from a join table must be new columns.
    private func resolveJoinFills() {
        for fill in joinFills where keptColumn[fill.toOne] != nil {
            let (entity, property) = splitKey(fill.toOne)
            refuse(entity, property, stored: "to-one with links of its own", model: "the inverse of a to-many that had a join table",
                   reason: "the links of both would have to be merged",
                   fix: stageFix(converting: fill.toOne, "that merges them"))
        }
    }

    // MARK: Removals

    private func checkRemovals() {
        let pairedOldEntities = Set(oldEntityName.values)
        for entity in old.entities {
            guard pairedOldEntities.contains(entity.name) else {
                if !handledOldEntities.contains(entity.name) {
                    refuseRemoval(entity.name, nil, stored: "an entity", hint: "RenamedEntity with originalEntityName = \"\(entity.name)\"")
                }
                continue
            }
            let newName = oldEntityName.first { $0.value == entity.name }!.key
            let paired = Set(oldPropertyName[newName]?.values.map { $0 } ?? [])
            for property in entity.properties where !paired.contains(property.name) {
                refuseRemoval(entity.name, property.name, stored: property.typeDescription,
                              hint: "originalName: \"\(property.name)\" on the property that replaces it")
            }
            let newEntity = newLookup.entity(named: newName)!
            for index in entity.indexes where !keepsIndex(index, of: newEntity) {
                refuseRemoval(entity.name, index.properties.joined(separator: ", "), stored: index.isUnique ? "a uniqueness constraint" : "an index", hint: nil)
            }
        }
    }

    /// Whether `entity` (new) declares `index` (old) again, or a uniqueness constraint that
    /// covers it.
    private func keepsIndex(_ index: StoredIndex, of entity: StoredEntity) -> Bool {
        let renamed = index.properties.map { oldName in
            oldPropertyName[entity.name]?.first { $0.value == oldName }?.key
                ?? entity.superentity.flatMap { newName(ofOldProperty: oldName, inheritedBy: $0) } ?? "\u{0}"
        }
        return entity.indexes.contains { $0.properties == renamed && ($0.isUnique || !index.isUnique) }
    }

    private func newName(ofOldProperty oldName: String, inheritedBy entity: String) -> String? {
        for ancestor in newLookup.lineage(of: entity).reversed() {
            if let name = oldPropertyName[ancestor.name]?.first(where: { $0.value == oldName })?.key { return name }
        }
        return nil
    }

    private func refuseRemoval(_ entity: String, _ property: String?, stored: String, hint: String?) {
        guard !allowsRemovals else { return }
        let renameHint = hint.map { "; if it was renamed, declare \($0)" } ?? ""
        refuse(entity, property, stored: stored, model: "absent",
               reason: "the file was written at version \(context.fileVersion) and the model is version \(context.modelVersion); only a higher version may remove what a file has, so that an older app never drops what a newer one added",
               fix: "if you removed it on purpose, raise the model's version to \(context.fileVersion + 1) (ObjectModel(version: \(context.fileVersion + 1), entities: …))\(renameHint); if a newer version of the app wrote this file, open it with that version")
    }

    // MARK: Refusing

    func refuse(_ entity: String, _ property: String?, stored: String, model: String, reason: String, fix: String) {
        refusals.append(RefusedChange(entity: entity, property: property, stored: stored, model: model, reason: reason, fix: fix))
    }

    private func refuseRelationship(_ property: StoredProperty, of entity: StoredEntity, old: StoredProperty, reason: String) {
        refuse(entity.name, property.name, stored: old.typeDescription + (old.inverse.map { " (inverse \($0))" } ?? ""),
               model: property.typeDescription + (property.inverse.map { " (inverse \($0))" } ?? ""),
               reason: reason, fix: stageFix(converting: entity.name + "." + property.name, "that sets the new links from the old ones"))
    }

    /// The fix for a change only a stage can make.
    func stageFix(converting name: String, _ purpose: String) -> String {
        if let stage = context.stage {
            return "list \"\(name)\" in the converting: of the stage '\(stage)' and set it there"
        }
        return "add a MigrationStage(\"…\", from: <the previous model>, to: <this model, version above \(context.fileVersion)>, converting: [\"\(name)\"]) \(purpose)"
    }

    /// The row names of an entity and its sub-entities, when its table holds others too.
    func scopeNames(of entity: String, in lookup: SchemaLookup) -> [String]? {
        let family = lookup.family(of: entity)
        guard family.count < lookup.hierarchy(of: lookup.root(of: entity)).count else { return nil }
        return family.map { lookup.rowName(of: $0.name) }
    }
}
