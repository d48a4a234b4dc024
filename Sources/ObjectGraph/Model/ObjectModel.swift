/// The entities of a store: the model classes, their properties and how they relate, checked
/// once when the model is made.
///
/// ```swift
/// let model = try ObjectModel(entities: [Bucket.self, Content.self, ImageContent.self])
/// ```
///
/// A model has a version (1 unless you say otherwise). A store records the version of the
/// model that last brought its file up to date, and refuses a file written by a newer version;
/// removing an entity, a property or an index needs a higher version than the file's (see
/// `Docs/Migrations.md`):
///
/// ```swift
/// let model = try ObjectModel(version: 2, entities: [Bucket.self, Content.self])
/// ```
///
/// A mistake in the classes is a thrown ``ObjectGraphError`` that names the entity and the
/// property: an unsupported attribute type, a relationship to a class outside the model, an
/// inverse that does not exist or does not point back, a class listed twice, or an index over
/// something that cannot be indexed.
public final class ObjectModel: Sendable {
    /// The entities, in the order given.
    public let entities: [EntityDescription]
    /// The model's version: 1 or more, raised by the app when a new version of its model
    /// removes something (see ``ObjectGraphError/migrationRefused(path:changes:)``).
    public let version: Int
    private let entityByName: [String: EntityDescription]
    private let entityByClass: [ObjectIdentifier: EntityDescription]
    /// A text that changes whenever the entities or their properties change, in order.
    ///
    /// The first release of the store compared it to refuse a file written for another model;
    /// files still carry it, so that the first release keeps opening a file whose model did not
    /// change. Stores now compare the schema a file describes, property by property, by name.
    public let fingerprint: String
    /// The schema a new file gets for this model, worked out on first use (see
    /// ``StoreMigrator``: a file laid out exactly so opens without planning a migration).
    let newFileSchema = NewFileSchema()

    /// Describes `entities` and checks them.
    ///
    /// - Parameters:
    ///   - version: the model's version, 1 or more; see ``version``.
    ///   - classes: the model classes, one entity each.
    public init(version: Int = 1, entities classes: [ManagedObject.Type]) throws {
        guard version >= 1 else { throw ObjectGraphError.invalidModelVersion(version) }
        self.version = version
        var names: [String] = []
        var nameByClass: [ObjectIdentifier: String] = [:]
        var reflected: [String: [ReflectedProperty]] = [:]
        var layouts: [String: ClassLayout] = [:]
        var superclassByName: [String: String] = [:]
        var classByName: [String: ManagedObject.Type] = [:]

        for objectClass in classes {
            let name = String(describing: objectClass)
            let key = ObjectIdentifier(objectClass)
            guard nameByClass[key] == nil, classByName[name] == nil else {
                throw ObjectGraphError.duplicateEntity(name)
            }
            nameByClass[key] = name
            classByName[name] = objectClass
            names.append(name)
            let probe = objectClass.init()
            let layout = ClassLayout.of(probe)
            layouts[name] = layout
            reflected[name] = layout.properties
            var ancestor = Mirror(reflecting: probe).superclassMirror
            while let mirror = ancestor {
                if let superclass = mirror.subjectType as? ManagedObject.Type,
                   let superName = nameByClass[ObjectIdentifier(superclass)] ?? classes.first(where: { $0 == superclass }).map({ String(describing: $0) }) {
                    superclassByName[name] = superName
                    break
                }
                ancestor = mirror.superclassMirror
            }
        }

        func root(of name: String) -> String {
            var current = name
            while let parent = superclassByName[current] { current = parent }
            return current
        }
        func isKind(_ name: String, of ancestor: String) -> Bool {
            var current: String? = name
            while let candidate = current {
                if candidate == ancestor { return true }
                current = superclassByName[candidate]
            }
            return false
        }
        func entityName(of objectClass: ManagedObject.Type) -> String? { nameByClass[ObjectIdentifier(objectClass)] }

        var descriptionsByName: [String: [PropertyDescription]] = [:]
        for name in names {
            let properties = reflected[name] ?? []
            var descriptions: [PropertyDescription] = []
            for (index, property) in properties.enumerated() {
                switch property.kind {
                case .attribute(let valueType, _):
                    guard let (type, isOptional) = AttributeType.of(valueType) else {
                        throw ObjectGraphError.unsupportedAttributeType(entity: name, property: property.name, type: String(describing: valueType))
                    }
                    descriptions.append(PropertyDescription(
                        name: property.name, index: index, kind: .attribute(type, isOptional: isOptional), originalName: property.originalName,
                        valueInfo: property.valueInfo))
                case let .relationship(destinationClass, isToMany, isOrdered, declaredInverse, deleteRule):
                    guard let destination = entityName(of: destinationClass) else {
                        throw ObjectGraphError.unknownDestination(entity: name, property: property.name, destination: String(describing: destinationClass))
                    }
                    let destinationProperties = reflected[destination] ?? []
                    var inverseName = declaredInverse
                    if let declaredInverse {
                        guard let inverse = destinationProperties.first(where: { $0.name == declaredInverse }) else {
                            throw ObjectGraphError.missingInverse(entity: name, property: property.name, inverse: declaredInverse, destination: destination)
                        }
                        guard case let .relationship(backClass, _, _, backInverse, _) = inverse.kind,
                              let backName = entityName(of: backClass), isKind(name, of: backName),
                              backInverse == nil || backInverse == property.name else {
                            throw ObjectGraphError.mismatchedInverse(entity: name, property: property.name, inverse: declaredInverse, destination: destination)
                        }
                    } else {
                        inverseName = destinationProperties.first(where: { candidate in
                            guard case let .relationship(backClass, _, _, backInverse, _) = candidate.kind,
                                  let backName = entityName(of: backClass) else { return false }
                            return backInverse == property.name && isKind(name, of: backName)
                        })?.name
                    }
                    let inverseIndex = inverseName.flatMap { inverse in destinationProperties.firstIndex { $0.name == inverse } }
                    var inverseIsToMany = false
                    if let inverseIndex, case let .relationship(_, backIsToMany, _, _, _) = destinationProperties[inverseIndex].kind {
                        inverseIsToMany = backIsToMany
                    }
                    let relationship = RelationshipDescription(
                        destinationName: destination, isToMany: isToMany, isOrdered: isOrdered, inverseName: inverseName,
                        inverseIndex: inverseIndex, inverseIsToMany: inverseIsToMany, deleteRule: deleteRule)
                    descriptions.append(PropertyDescription(
                        name: property.name, index: index, kind: .relationship(relationship), originalName: property.originalName))
                }
            }
            descriptionsByName[name] = descriptions
        }

        // Superentities first, so that each entity starts from the indexes it inherits.
        func depth(of name: String) -> Int {
            var depth = 0
            var current = name
            while let parent = superclassByName[current] {
                depth += 1
                current = parent
            }
            return depth
        }
        var indexesByName: [String: [IndexDescription]] = [:]
        for name in names.sorted(by: { depth(of: $0) < depth(of: $1) }) {
            let superName = superclassByName[name]
            let resolver = IndexResolver(
                entityName: name, objectClass: classByName[name]!, layout: layouts[name]!, properties: descriptionsByName[name] ?? [])
            indexesByName[name] = try resolver.indexes(
                inherited: superName.flatMap { indexesByName[$0] } ?? [],
                inheritedPropertyCount: superName.flatMap { descriptionsByName[$0]?.count } ?? 0)
        }

        var built: [EntityDescription] = []
        for name in names {
            let family = Set(names.filter { isKind($0, of: name) })
            built.append(EntityDescription(
                name: name, objectClass: classByName[name]!, layout: layouts[name]!, properties: descriptionsByName[name] ?? [],
                indexes: indexesByName[name] ?? [], superentityName: superclassByName[name],
                originalName: RenamedEntityName.of(classByName[name]!, superclass: superclassByName[name].flatMap { classByName[$0] }),
                rootName: root(of: name),
                rootIndex: names.firstIndex(of: root(of: name))!, selfAndSubentityNames: family))
        }

        entities = built
        entityByName = Dictionary(uniqueKeysWithValues: built.map { ($0.name, $0) })
        entityByClass = Dictionary(uniqueKeysWithValues: built.map { (ObjectIdentifier($0.objectClass), $0) })
        fingerprint = built.map { entity in
            "\(entity.name)<\(entity.superentityName ?? ""):" + entity.properties.map(\.description).joined(separator: ",")
        }.joined(separator: ";")
    }

    /// The entity called `name`, if any.
    public func entity(named name: String) -> EntityDescription? { entityByName[name] }

    /// The entity of `objectClass`, if it is in the model.
    public func entity(for objectClass: ManagedObject.Type) -> EntityDescription? {
        entityByClass[ObjectIdentifier(objectClass)]
    }

    /// The entity of `objectClass`, or an error naming the class.
    func requireEntity(for objectClass: ManagedObject.Type) throws(ObjectGraphError) -> EntityDescription {
        guard let entity = entity(for: objectClass) else {
            throw .unknownEntity(String(describing: objectClass))
        }
        return entity
    }

    /// The entities that share `root`'s table: `root` and everything below it.
    func hierarchy(of root: EntityDescription) -> [EntityDescription] {
        entities.filter { $0.rootName == root.rootName }
    }

    /// The entity that names a table.
    func rootEntities() -> [EntityDescription] {
        entities.filter { $0.superentityName == nil }
    }
}
