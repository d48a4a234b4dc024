import Foundation
@testable import ObjectGraph
import Testing

/// A model made at random, described without classes: entities (some with a sub-entity),
/// attributes, to-ones and many-to-manys, each with an identity that survives renames, so that
/// the reference data follows them.
struct GeneratedModel {
    struct Attribute {
        let id: Int
        var name: String
        var type: String
        var isOptional: Bool
        /// The initial value of a required attribute.
        let initial: PropertyValue
        /// It as an SQL literal.
        var initialLiteral: String { initial.sqlLiteral! }
    }

    struct ToOne {
        let id: Int
        var name: String
        var destination: Int
    }

    struct Entity {
        let id: Int
        var name: String
        let superentity: Int?
        var attributes: [Attribute] = []
        var toOnes: [ToOne] = []
    }

    struct ManyToMany {
        let id: Int
        var owner: Int
        var ownerName: String
        var target: Int
        var targetName: String
    }

    var entities: [Entity] = []
    var manyToMany: [ManyToMany] = []
    var nextID = 0

    mutating func freshID() -> Int {
        nextID += 1
        return nextID
    }

    func entity(_ id: Int) -> Entity { entities.first { $0.id == id }! }
    func name(of id: Int) -> String { entity(id).name }
    /// The entity and its sub-entities.
    func family(of id: Int) -> [Int] { [id] + entities.filter { $0.superentity == id }.map(\.id) }
    func root(of id: Int) -> Int { entity(id).superentity ?? id }
    func lineage(of id: Int) -> [Entity] { (entity(id).superentity.map { [entity($0)] } ?? []) + [entity(id)] }

    /// The description a model of these classes would have; `originalNames` by identity.
    func description(originalNames: [Int: String]) -> StoredSchema {
        StoredSchema(entities: entities.map { entity in
            var properties = entity.attributes.map { attribute in
                var property = StoredProperty(
                    name: attribute.name, kind: .attribute, type: attribute.type, isOptional: attribute.isOptional, originalName: originalNames[attribute.id])
                property.defaultValue = attribute.isOptional ? nil : attribute.initial
                return property
            }
            properties += entity.toOnes.map { toOne in
                StoredProperty(name: toOne.name, kind: .toOne, destination: name(of: toOne.destination), deleteRule: "nullify", originalName: originalNames[toOne.id])
            }
            for relationship in manyToMany {
                if relationship.owner == entity.id {
                    properties.append(StoredProperty(
                        name: relationship.ownerName, kind: .toMany, destination: name(of: relationship.target), inverse: relationship.targetName,
                        deleteRule: "nullify", originalName: originalNames[relationship.id]))
                }
                if relationship.target == entity.id {
                    properties.append(StoredProperty(
                        name: relationship.targetName, kind: .toMany, destination: name(of: relationship.owner), inverse: relationship.ownerName,
                        deleteRule: "nullify", originalName: originalNames[-relationship.id]))
                }
            }
            return StoredEntity(
                name: entity.name, superentity: entity.superentity.map(name(of:)), table: "", properties: properties, indexes: [],
                originalName: originalNames[entity.id])
        }).laidOutAsNew()
    }
}

/// What the file must hold: every object's values by property identity (as SQLite's `quote()`
/// prints them), and every many-to-many's pairs.
struct ReferenceData {
    /// By root entity, by key: the object's entity and values.
    var objects: [Int: [Int64: (entity: Int, values: [Int: String])]] = [:]
    /// By many-to-many: (owner key, target key).
    var pairs: [Int: Set<[Int64]>] = [:]
}

@Suite("Migration, property-based: random sequences of model versions keep every surviving value")
struct MigrationPropertyTests {
    /// How many seeds to run: `OBJECTGRAPH_MIGRATION_SEEDS`, 30 by default.
    static var seedCount: Int { ProcessInfo.processInfo.environment["OBJECTGRAPH_MIGRATION_SEEDS"].flatMap(Int.init) ?? 30 }
    static let versionsPerSeed = 6

    static let types = ["int64", "int16", "string", "double", "bool", "date", "data", "uuid"]

    @Test("add, remove, rename, make optional, widen — attributes, relationships, entities — applied to a populated store")
    func randomVersions() throws {
        var tally = (steps: 0, mutations: 0)
        for seed in 0..<UInt64(Self.seedCount) {
            try run(seed: seed, tally: &tally)
        }
        #expect(tally.steps == Self.seedCount * (Self.versionsPerSeed - 1))
        #expect(tally.mutations >= tally.steps)
    }

    func run(seed: UInt64, tally: inout (steps: Int, mutations: Int)) throws {
        var random = SeededGenerator(seed: seed &+ 0x5EED_0F_14)
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("generated.sqlite")
            var model = Self.initialModel(&random)
            var file = model.description(originalNames: [:])
            let connection = try SQLiteConnection(path: url.path)
            // A scratch file: no fsync per transaction.
            try connection.execute("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF")
            for statement in SchemaDefinitions(file).creationStatements { try connection.execute(statement) }
            let raw = try RawDatabase(path: url.path)
            try raw.execute("PRAGMA synchronous = OFF; BEGIN")
            var reference = try populate(model, file, raw, &random)
            try raw.execute("COMMIT")
            try check(model, file, raw, reference, Comment(rawValue: "seed \(seed), version 1"))

            for version in 2...Self.versionsPerSeed {
                let note = Comment(rawValue: "seed \(seed), version \(version)")
                var next = model
                var originalNames: [Int: String] = [:]
                var log: [String] = []
                let existing = next.nextID
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    log.append(try mutate(&next, &reference, &originalNames, &random, raw: raw, existingBeforeStep: existing))
                }
                tally.mutations += log.count
                let planner = MigrationPlanner(
                    old: file, new: next.description(originalNames: originalNames), allowsRemovals: true, conversions: [],
                    context: .init(fileVersion: version - 1, modelVersion: version, stage: nil))
                let step: MigrationStep
                do {
                    step = try planner.plan()
                } catch let refusals as MigrationPlanner.Refusals {
                    Issue.record("\(note.rawValue): refused \(refusals.changes) after \(log)")
                    return
                }
                let executor = MigrationExecutor(connection: connection, rebuildsTables: Bool.random(using: &random))
                do {
                    try connection.writeTransaction { () throws(ObjectGraphError) in try executor.run(step) { () throws(ObjectGraphError) in } }
                } catch {
                    Issue.record("\(note.rawValue): \(error) after \(log)")
                    return
                }
                file = step.target
                model = next
                tally.steps += 1
                try check(model, file, raw, reference, Comment(rawValue: "\(note.rawValue) after \(log)"))
            }
        }
    }

    // MARK: Generating

    static func initialModel(_ random: inout SeededGenerator) -> GeneratedModel {
        var model = GeneratedModel()
        for _ in 0..<Int.random(in: 2...3, using: &random) {
            let id = model.freshID()
            model.entities.append(.init(id: id, name: "E\(id)", superentity: nil))
            for _ in 0..<Int.random(in: 1...3, using: &random) { model.entities[model.entities.count - 1].attributes.append(attribute(&model, &random)) }
            if Bool.random(using: &random) {
                let sub = model.freshID()
                model.entities.append(.init(id: sub, name: "S\(sub)", superentity: id))
                model.entities[model.entities.count - 1].attributes.append(attribute(&model, &random))
            }
        }
        for _ in 0..<Int.random(in: 0...2, using: &random) { addToOne(&model, &random) }
        for _ in 0..<Int.random(in: 0...2, using: &random) { addManyToMany(&model, &random) }
        return model
    }

    static func attribute(_ model: inout GeneratedModel, _ random: inout SeededGenerator) -> GeneratedModel.Attribute {
        let id = model.freshID()
        let type = types.randomElement(using: &random)!
        return .init(id: id, name: "a\(id)", type: type, isOptional: Bool.random(using: &random), initial: value(of: type, &random))
    }

    @discardableResult
    static func addToOne(_ model: inout GeneratedModel, _ random: inout SeededGenerator) -> Int {
        let id = model.freshID()
        let owner = model.entities.indices.randomElement(using: &random)!
        let destination = model.entities.randomElement(using: &random)!.id
        model.entities[owner].toOnes.append(.init(id: id, name: "o\(id)", destination: destination))
        return model.entities[owner].id
    }

    @discardableResult
    static func addManyToMany(_ model: inout GeneratedModel, _ random: inout SeededGenerator) -> Int {
        let id = model.freshID()
        let owner = model.entities.randomElement(using: &random)!.id
        let target = model.entities.randomElement(using: &random)!.id
        model.manyToMany.append(.init(id: id, owner: owner, ownerName: "m\(id)", target: target, targetName: "n\(id)"))
        return id
    }

    /// A value of `type`.
    static func value(of type: String, _ random: inout SeededGenerator) -> PropertyValue {
        let values: [PropertyValue] = switch type {
        case "int64": [.integer(Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &random)), .integer(.max), .integer(.min)]
        case "int16": [.integer(Int64.random(in: -32_768...32_767, using: &random))]
        case "string": [.string(""), .string("caf\u{E9}"), .string("x'y"), .string(String(repeating: "z", count: Int.random(in: 1...40, using: &random)))]
        case "double": [.double(0.5), .double(-0.0), .double(.nan), .double(1e300), .double(Double.random(in: -10...10, using: &random))]
        case "bool": [.bool(true), .bool(false)]
        case "date": [.date(Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &random)))]
        case "data": [.data(Data()), .data(Data((0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))]
        default: [.uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, UInt8.random(in: 0...255, using: &random))))]
        }
        return values.randomElement(using: &random)!
    }

    /// A new name: lower case, or now and then a case variant of a name the hierarchy uses
    /// (SQLite compares column names without case).
    static func newName(_ prefix: String, _ model: inout GeneratedModel, near entity: Int, _ random: inout SeededGenerator) -> String {
        let used = model.family(of: model.root(of: entity)).flatMap { model.entity($0).attributes.map(\.name) + model.entity($0).toOnes.map(\.name) }
        if Int.random(in: 0..<4, using: &random) == 0, let base = used.randomElement(using: &random), base.first!.isLowercase {
            let variant = base.prefix(1).uppercased() + base.dropFirst()
            if !used.contains(variant) { return variant }
        }
        return "\(prefix)\(model.freshID())"
    }

    /// One random change to `model`, reflected in `reference`; returns what it did.
    func mutate(
        _ model: inout GeneratedModel, _ reference: inout ReferenceData, _ originalNames: inout [Int: String], _ random: inout SeededGenerator,
        raw: RawDatabase, existingBeforeStep: Int
    ) throws -> String {
        switch Int.random(in: 0..<12, using: &random) {
        case 0, 1:
            let index = model.entities.indices.randomElement(using: &random)!
            var attribute = Self.attribute(&model, &random)
            attribute.name = Self.newName("a", &model, near: model.entities[index].id, &random)
            model.entities[index].attributes.append(attribute)
            let initial = attribute.isOptional ? "NULL" : try raw.rows("SELECT quote(\(attribute.initialLiteral))")[0][0]!
            let family = Set(model.family(of: model.entities[index].id))
            let root = model.root(of: model.entities[index].id)
            for (key, object) in reference.objects[root] ?? [:] where family.contains(object.entity) {
                reference.objects[root]![key]!.values[attribute.id] = initial
            }
            return "add \(attribute.name): \(attribute.type)\(attribute.isOptional ? "?" : "") to \(model.entities[index].name)"
        case 2:
            guard let (index, slot) = randomAttribute(model, &random) else { return "nothing" }
            let removed = model.entities[index].attributes.remove(at: slot)
            forget(removed.id, in: &reference)
            return "remove \(model.entities[index].name).\(removed.name)"
        case 3, 4:
            guard let (index, slot) = randomAttribute(model, &random) else { return "nothing" }
            let old = model.entities[index].attributes[slot].name
            guard originalNames[model.entities[index].attributes[slot].id] == nil else { return "nothing" }
            originalNames[model.entities[index].attributes[slot].id] = old
            model.entities[index].attributes[slot].name = Self.newName("r", &model, near: model.entities[index].id, &random)
            return "rename \(model.entities[index].name).\(old) to \(model.entities[index].attributes[slot].name)"
        case 5:
            // An attribute added in this version starts as what it is declared at the end.
            guard let (index, slot) = randomAttribute(model, &random), model.entities[index].attributes[slot].id <= existingBeforeStep else { return "nothing" }
            model.entities[index].attributes[slot].isOptional = true
            if model.entities[index].attributes[slot].type == "int16" { model.entities[index].attributes[slot].type = "int64" }
            return "loosen \(model.entities[index].name).\(model.entities[index].attributes[slot].name)"
        case 6:
            let id = model.freshID()
            model.entities.append(.init(id: id, name: "E\(id)", superentity: nil, attributes: [Self.attribute(&model, &random)]))
            reference.objects[id] = [:]
            return "add entity E\(id)"
        case 7:
            let removed = model.entities.randomElement(using: &random)!
            guard model.entities.count > model.family(of: removed.id).count else { return "nothing" }
            removeEntity(removed.id, &model, &reference)
            return "remove entity \(removed.name)"
        case 8:
            let index = model.entities.indices.randomElement(using: &random)!
            guard originalNames[model.entities[index].id] == nil else { return "nothing" }
            originalNames[model.entities[index].id] = model.entities[index].name
            let old = model.entities[index].name
            model.entities[index].name = "R\(model.freshID())"
            return "rename entity \(old) to \(model.entities[index].name)"
        case 9:
            let owner = Self.addToOne(&model, &random)
            let id = model.nextID
            let root = model.root(of: owner)
            let family = Set(model.family(of: owner))
            for (key, object) in reference.objects[root] ?? [:] where family.contains(object.entity) {
                reference.objects[root]![key]!.values[id] = "NULL"
            }
            return "add to-one o\(id) to \(model.name(of: owner))"
        case 10:
            let id = Self.addManyToMany(&model, &random)
            reference.pairs[id] = []
            return "add many-to-many m\(id)"
        default:
            if Bool.random(using: &random), let index = model.entities.indices.filter({ !model.entities[$0].toOnes.isEmpty }).randomElement(using: &random) {
                let slot = model.entities[index].toOnes.indices.randomElement(using: &random)!
                if Bool.random(using: &random) {
                    let removed = model.entities[index].toOnes.remove(at: slot)
                    forget(removed.id, in: &reference)
                    return "remove to-one \(removed.name)"
                }
                guard originalNames[model.entities[index].toOnes[slot].id] == nil else { return "nothing" }
                originalNames[model.entities[index].toOnes[slot].id] = model.entities[index].toOnes[slot].name
                model.entities[index].toOnes[slot].name = Self.newName("t", &model, near: model.entities[index].id, &random)
                return "rename to-one to \(model.entities[index].toOnes[slot].name)"
            }
            guard let slot = model.manyToMany.indices.randomElement(using: &random) else { return "nothing" }
            if Bool.random(using: &random) {
                let removed = model.manyToMany.remove(at: slot)
                reference.pairs[removed.id] = nil
                return "remove many-to-many \(removed.ownerName)"
            }
            let id = model.manyToMany[slot].id
            guard originalNames[id] == nil, originalNames[-id] == nil else { return "nothing" }
            if Bool.random(using: &random) {
                originalNames[id] = model.manyToMany[slot].ownerName
                model.manyToMany[slot].ownerName = "w\(model.freshID())"
            } else {
                originalNames[-id] = model.manyToMany[slot].targetName
                model.manyToMany[slot].targetName = "v\(model.freshID())"
            }
            return "rename a side of many-to-many \(id)"
        }
    }

    func randomAttribute(_ model: GeneratedModel, _ random: inout SeededGenerator) -> (Int, Int)? {
        let candidates = model.entities.indices.flatMap { index in model.entities[index].attributes.indices.map { (index, $0) } }
        return candidates.randomElement(using: &random)
    }

    func forget(_ property: Int, in reference: inout ReferenceData) {
        for root in reference.objects.keys {
            for key in reference.objects[root]!.keys { reference.objects[root]![key]!.values[property] = nil }
        }
    }

    /// Removes an entity (a root with its sub-entities), the relationships that involve it and
    /// its objects; links to its objects from what stays are cleared.
    func removeEntity(_ id: Int, _ model: inout GeneratedModel, _ reference: inout ReferenceData) {
        let removed = Set(model.family(of: id))
        let root = model.root(of: id)
        let removedKeys = Set((reference.objects[root] ?? [:]).filter { removed.contains($0.value.entity) }.map(\.key))
        for entity in model.entities where removed.contains(entity.id) {
            for property in entity.attributes.map(\.id) + entity.toOnes.map(\.id) { forget(property, in: &reference) }
        }
        for index in model.entities.indices {
            for toOne in model.entities[index].toOnes where removed.contains(toOne.destination) { forget(toOne.id, in: &reference) }
            model.entities[index].toOnes.removeAll { removed.contains($0.destination) }
        }
        // Links from kept to-ones to removed objects of the same table are cleared.
        for index in model.entities.indices where !removed.contains(model.entities[index].id) {
            for toOne in model.entities[index].toOnes where model.root(of: toOne.destination) == root {
                for (objectRoot, objects) in reference.objects {
                    for (key, object) in objects where object.values[toOne.id].flatMap({ Int64($0) }).map(removedKeys.contains) == true {
                        reference.objects[objectRoot]![key]!.values[toOne.id] = "NULL"
                    }
                }
            }
        }
        for relationship in model.manyToMany {
            if removed.contains(relationship.owner) || removed.contains(relationship.target) {
                reference.pairs[relationship.id] = nil
            } else {
                if model.root(of: relationship.owner) == root { reference.pairs[relationship.id] = reference.pairs[relationship.id]!.filter { !removedKeys.contains($0[0]) } }
                if model.root(of: relationship.target) == root { reference.pairs[relationship.id] = reference.pairs[relationship.id]!.filter { !removedKeys.contains($0[1]) } }
            }
        }
        model.manyToMany.removeAll { removed.contains($0.owner) || removed.contains($0.target) }
        if id == root {
            reference.objects[root] = nil
        } else {
            for key in removedKeys { reference.objects[root]![key] = nil }
        }
        model.entities.removeAll { removed.contains($0.id) }
    }

    // MARK: Populating and checking

    func populate(_ model: GeneratedModel, _ file: StoredSchema, _ raw: RawDatabase, _ random: inout SeededGenerator) throws -> ReferenceData {
        let lookup = SchemaLookup(file)
        var keysByEntity: [Int: [Int64]] = [:]
        var nextKey: Int64 = 1
        for root in model.entities where root.superentity == nil {
            for _ in 0..<Int.random(in: 4...9, using: &random) {
                let entity = model.family(of: root.id).randomElement(using: &random)!
                keysByEntity[entity, default: []].append(nextKey)
                nextKey += 1
            }
        }
        for entity in model.entities {
            for key in keysByEntity[entity.id] ?? [] {
                var columns = ["pk", "entity", "version"]
                var values = ["\(key)", SQLSchema.literal(entity.name), "1"]
                for owner in model.lineage(of: entity.id) {
                    for attribute in owner.attributes {
                        columns.append(SQLSchema.quoted(lookup.property(attribute.name, of: entity.name)!.property.column!))
                        values.append(attribute.isOptional && Int.random(in: 0..<3, using: &random) == 0 ? "NULL" : Self.value(of: attribute.type, &random).sqlLiteral!)
                    }
                    for toOne in owner.toOnes {
                        columns.append(SQLSchema.quoted(lookup.property(toOne.name, of: entity.name)!.property.column!))
                        let targets = model.family(of: toOne.destination).flatMap { keysByEntity[$0] ?? [] }
                        values.append(targets.randomElement(using: &random).map { "\($0)" } ?? "NULL")
                    }
                }
                try raw.execute("INSERT INTO \(SQLSchema.quoted(lookup.entity(named: entity.name)!.table)) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))")
            }
        }
        for relationship in model.manyToMany {
            let owners = model.family(of: relationship.owner).flatMap { keysByEntity[$0] ?? [] }
            let targets = model.family(of: relationship.target).flatMap { keysByEntity[$0] ?? [] }
            let side = lookup.property(relationship.ownerName, of: model.name(of: relationship.owner))!.property
            let other = side.joinColumn == "owner" ? "target" : "owner"
            for owner in owners {
                for target in targets where Int.random(in: 0..<3, using: &random) == 0 {
                    try raw.execute("INSERT OR IGNORE INTO \(SQLSchema.quoted(side.joinTable!)) (\(side.joinColumn!), \(other)) VALUES (\(owner), \(target))")
                }
            }
        }
        return try read(model, file, raw)
    }

    /// Everything the file holds for `model`, laid out as `file` says.
    func read(_ model: GeneratedModel, _ file: StoredSchema, _ raw: RawDatabase) throws -> ReferenceData {
        let lookup = SchemaLookup(file)
        var data = ReferenceData()
        for root in model.entities where root.superentity == nil { data.objects[root.id] = [:] }
        for entity in model.entities {
            var properties: [(Int, String)] = []
            for owner in model.lineage(of: entity.id) {
                for attribute in owner.attributes { properties.append((attribute.id, lookup.property(attribute.name, of: entity.name)!.property.column!)) }
                for toOne in owner.toOnes { properties.append((toOne.id, lookup.property(toOne.name, of: entity.name)!.property.column!)) }
            }
            let selected = (["pk"] + properties.map { "quote(\(SQLSchema.quoted($0.1)))" }).joined(separator: ", ")
            let table = SQLSchema.quoted(lookup.entity(named: entity.name)!.table)
            for row in try raw.rows("SELECT \(selected) FROM \(table) WHERE entity = \(SQLSchema.literal(entity.name))") {
                var values: [Int: String] = [:]
                for (offset, property) in properties.enumerated() { values[property.0] = row[offset + 1] }
                data.objects[model.root(of: entity.id)]![Int64(row[0]!)!] = (entity.id, values)
            }
        }
        for relationship in model.manyToMany {
            let side = lookup.property(relationship.ownerName, of: model.name(of: relationship.owner))!.property
            let other = side.joinColumn == "owner" ? "target" : "owner"
            data.pairs[relationship.id] = Set(try raw.rows("SELECT \(side.joinColumn!), \(other) FROM \(SQLSchema.quoted(side.joinTable!))").map { [Int64($0[0]!)!, Int64($0[1]!)!] })
        }
        return data
    }

    func check(_ model: GeneratedModel, _ file: StoredSchema, _ raw: RawDatabase, _ expected: ReferenceData, _ note: Comment) throws {
        #expect(file.mismatch(withGenerated: model) == nil, note)
        let found = try read(model, file, raw)
        #expect(Set(found.objects.keys) == Set(expected.objects.keys), note)
        for (root, objects) in expected.objects {
            let actual = found.objects[root] ?? [:]
            #expect(Set(actual.keys) == Set(objects.keys), "\(note.rawValue): keys of \(model.name(of: root))")
            for (key, object) in objects {
                guard let stored = actual[key] else { continue }
                #expect(stored.entity == object.entity && stored.values == object.values, "\(note.rawValue): \(model.name(of: object.entity))/\(key)")
            }
            // No rows of entities the model lacks.
            let lookup = SchemaLookup(file)
            let names = Set(model.family(of: root).map(model.name(of:)))
            let table = SQLSchema.quoted(lookup.entity(named: model.name(of: root))!.table)
            let entities = Set(try raw.rows("SELECT DISTINCT entity FROM \(table)").map { $0[0]! })
            #expect(entities.isSubset(of: names), "\(note.rawValue): \(entities) in \(table)")
        }
        #expect(found.pairs == expected.pairs, note)
        let tables = Set(try raw.tables())
        let definitions = SchemaDefinitions(file)
        #expect(tables == Set(definitions.tables.map(\.name) + definitions.joinTables.map(\.name) + [SQLSchema.metadataTableName, SQLSchema.keysTableName]), note)
        let indexes = Set(try raw.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL").map { $0[0]! })
        #expect(indexes == Set(definitions.indexes.map(\.name)), note)
    }
}

extension StoredSchema {
    /// What keeps this description from describing the generated model's entities and
    /// properties, by name, if anything.
    func mismatch(withGenerated model: GeneratedModel) -> String? {
        let lookup = SchemaLookup(self)
        guard Set(entities.map(\.name)) == Set(model.entities.map(\.name)) else { return "entities \(entities.map(\.name))" }
        for entity in model.entities {
            for attribute in entity.attributes {
                guard let (_, property) = lookup.property(attribute.name, of: entity.name), property.type == attribute.type,
                      property.isOptional == attribute.isOptional else { return "\(entity.name).\(attribute.name)" }
            }
        }
        return nil
    }
}
