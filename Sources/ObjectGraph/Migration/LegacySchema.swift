/// Rebuilds the ``StoredSchema`` of a file written by the first release, which recorded only a
/// fingerprint of its model (`Entity<Superentity:property: type,…;…`, see
/// ``ObjectModel/fingerprint``): entities, properties in slot order, attribute types without
/// their width, relationships without their inverses.
///
/// What the fingerprint lacks comes from the file's tables (a join table names both sides of a
/// many-to-many) and from the model opening the file, where it agrees with them. Integers and
/// reals are of unknown width (``StoredAttributeType/legacyInteger``): the fingerprint says
/// `integer` for an `Int8` as for an `Int`, so a narrower type is checked against the values.
enum LegacySchema {
    /// The tables, columns and indexes a file has.
    struct FileTables {
        var columns: [String: [String]] = [:]
        var indexes: [String: String] = [:]

        func hasTable(_ name: String) -> Bool { columns[name] != nil }
    }

    private struct Entry {
        let name: String
        let superentity: String?
        let properties: [(name: String, type: String)]
    }

    /// The schema of the file, or what keeps it from being rebuilt; `model` is the
    /// description of the model opening it.
    static func reconstruct(fingerprint: String, model: StoredSchema, file: FileTables) -> Result<StoredSchema, LegacyProblem> {
        build(parse(fingerprint), model: model, file: file)
    }

    struct LegacyProblem: Error {
        let message: String
    }

    private static func parse(_ fingerprint: String) -> [Entry] {
        fingerprint.split(separator: ";", omittingEmptySubsequences: true).map { entry in
            let name = entry.prefix { $0 != "<" }
            let rest = entry.dropFirst(name.count + 1)
            let superentity = rest.prefix { $0 != ":" }
            let properties = rest.dropFirst(superentity.count + 1).split(separator: ",").map { property in
                let parts = property.split(separator: ":", maxSplits: 1)
                return (name: String(parts[0]), type: parts.count > 1 ? String(parts[1].drop { $0 == " " }) : "")
            }
            return Entry(name: String(name), superentity: superentity.isEmpty ? nil : String(superentity), properties: properties)
        }
    }

    private static func build(_ entries: [Entry], model: StoredSchema, file: FileTables) -> Result<StoredSchema, LegacyProblem> {
        let byName = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let hints = SchemaLookup(model)
        func declaring(_ slot: Int, of entry: Entry) -> String {
            var current = entry
            while let parent = current.superentity.flatMap({ byName[$0] }), parent.properties.count > slot { current = parent }
            return current.name
        }
        func inherited(_ entry: Entry) -> Int { entry.superentity.flatMap { byName[$0]?.properties.count } ?? 0 }
        func root(_ name: String) -> String {
            var current = name
            while let parent = byName[current]?.superentity { current = parent }
            return current
        }
        func isKind(_ name: String, of ancestor: String) -> Bool {
            var current: String? = name
            while let candidate = current {
                if candidate == ancestor { return true }
                current = byName[candidate]?.superentity
            }
            return false
        }
        /// The model's entity for a file entity: same name, or renamed from it.
        func hintEntity(_ name: String) -> StoredEntity? {
            model.entities.first { $0.name == name } ?? model.entities.first { $0.originalName == name }
        }
        func hintProperty(_ name: String, of entity: String) -> StoredProperty? {
            guard let hint = hintEntity(entity) else { return nil }
            let properties = hints.allProperties(of: hint.name).map(\.property)
            return properties.first { $0.name == name } ?? properties.first { $0.originalName == name }
        }
        /// The file's name of a model property name on a file entity.
        func fileName(ofModelProperty name: String, on entity: String) -> String? {
            guard let hint = hintEntity(entity), let (_, property) = hints.property(name, of: hint.name) else { return nil }
            let names = Set(byName[entity]?.properties.map(\.name) ?? [])
            if names.contains(property.name) { return property.name }
            return property.originalName.flatMap { names.contains($0) ? $0 : nil }
        }

        let layouts = entries.map { entry in
            SchemaNaming.EntityLayout(
                name: entry.name, root: root(entry.name),
                properties: entry.properties.enumerated().map { slot, property in
                    (declaring(slot, of: entry), property.name, !property.type.hasPrefix("to-many "))
                })
        }
        let columns = SchemaNaming.columns(of: layouts)
        let joinTables = file.columns.keys.filter { $0.contains(".") }

        var entities: [StoredEntity] = []
        var inverseOfToOne: [String: String] = [:]  // "Entity.toOne" → to-many name
        for entry in entries {
            var properties: [StoredProperty] = []
            for property in entry.properties.dropFirst(inherited(entry)) {
                let key = entry.name + "." + property.name
                let hint = hintProperty(property.name, of: entry.name)
                if property.type.hasPrefix("to-") {
                    let isToMany = property.type.hasPrefix("to-many ")
                    let destination = String(property.type.dropFirst(isToMany ? 8 : 7))
                    var stored = StoredProperty(
                        name: property.name, kind: isToMany ? .toMany : .toOne, destination: destination,
                        deleteRule: hint?.deleteRule ?? DeleteRule.nullify.storedName)
                    let hintInverse = hint?.inverse.flatMap { fileName(ofModelProperty: $0, on: destination) }
                    if !isToMany {
                        stored.column = columns[key]
                    } else if file.hasTable(key) {
                        stored.joinTable = key
                        stored.joinColumn = "owner"
                        stored.inverse = hintInverse == property.name ? property.name : nil
                    } else if let shared = joinTables.first(where: { $0.split(separator: "-").map(String.init).contains(key) }) {
                        let sides = shared.split(separator: "-").map(String.init)
                        stored.joinTable = shared
                        stored.joinColumn = sides[0] == key ? "owner" : "target"
                        stored.inverse = sides.first { $0 != key }.map { String($0.split(separator: ".").last!) }
                    } else {
                        // The links are in a to-one of the destination that points back.
                        let candidates = (byName[destination]?.properties ?? []).filter { candidate in
                            candidate.type.hasPrefix("to-one ") && isKind(entry.name, of: String(candidate.type.dropFirst(7)))
                        }.map(\.name)
                        guard let inverse = candidates.count == 1 ? candidates[0] : hintInverse.flatMap({ candidates.contains($0) ? $0 : nil }) else {
                            return .failure(LegacyProblem(message: "the file does not say which relationship of \(destination) is the inverse of \(key) (candidates: \(candidates.joined(separator: ", ")))"))
                        }
                        stored.inverse = inverse
                        inverseOfToOne[destination + "." + inverse] = property.name
                    }
                    if !isToMany, let hintInverse { stored.inverse = hintInverse }
                    properties.append(stored)
                } else {
                    let isOptional = property.type.hasSuffix("?")
                    let base = isOptional ? String(property.type.dropLast()) : property.type
                    let type = switch base {
                    case AttributeType.integer.rawValue: StoredAttributeType.legacyInteger
                    case AttributeType.double.rawValue: StoredAttributeType.legacyReal
                    default: base
                    }
                    properties.append(StoredProperty(name: property.name, kind: .attribute, type: type, isOptional: isOptional, column: columns[key]))
                }
            }
            let prefix = entry.name + "."
            let indexes = file.indexes.keys.sorted().compactMap { name -> StoredIndex? in
                guard name.hasPrefix(prefix), name.hasSuffix(")") else { return nil }
                let rest = name.dropFirst(prefix.count).dropLast()
                for (kind, isUnique) in [("index(", false), ("unique(", true)] where rest.hasPrefix(kind) {
                    return StoredIndex(properties: rest.dropFirst(kind.count).split(separator: ",").map(String.init), isUnique: isUnique)
                }
                return nil
            }
            entities.append(StoredEntity(name: entry.name, superentity: entry.superentity, table: root(entry.name), properties: properties, indexes: indexes))
        }
        // A to-one whose to-many side keeps its links in it is that side's inverse.
        for index in entities.indices {
            for propertyIndex in entities[index].properties.indices where entities[index].properties[propertyIndex].kind == .toOne {
                let key = entities[index].name + "." + entities[index].properties[propertyIndex].name
                if let inverse = inverseOfToOne[key] { entities[index].properties[propertyIndex].inverse = inverse }
            }
        }
        let schema = StoredSchema(entities: entities)
        if let missing = missingStorage(of: schema, in: file) {
            return .failure(LegacyProblem(message: "the file's tables do not match the model it records: \(missing)"))
        }
        return .success(schema)
    }

    /// A table or column the schema needs and the file lacks, if any.
    static func missingStorage(of schema: StoredSchema, in file: FileTables) -> String? {
        let definitions = SchemaDefinitions(schema)
        for table in definitions.tables.map(\.name) + definitions.joinTables.map(\.name) where !file.hasTable(table) {
            return "no table \(table)"
        }
        for entity in schema.entities {
            let columns = Set(file.columns[entity.table] ?? [])
            for property in entity.properties {
                if let column = property.column, !columns.contains(column) { return "no column \(entity.table).\(column)" }
            }
        }
        return nil
    }
}
