import Foundation

/// The schema a store file describes for itself: every entity, property, relationship and index
/// of the model that last brought the file up to date, and where each lives in SQLite (tables,
/// columns, join tables).
///
/// A file keeps it as JSON in `objectgraph-metadata` (key `schema`), so that opening compares
/// the file's schema with the model's property by property, by name — never by position — and
/// knows the layout without re-deriving it from names that may have changed since.
///
/// Types and kinds are strings (`"int16"`, `"to-many"`), so that a new attribute type or a new
/// kind of relationship is one more value, and ``format`` numbers the description itself: a
/// description in a later format is refused as written by a newer version.
///
/// The same types describe a model (``init(model:)``): then ``StoredProperty/originalName``
/// and ``StoredEntity/originalName`` carry the renames it declares, which are never stored.
struct StoredSchema: Codable, Sendable {
    /// The format of this description; bumped only when older code could not read it right.
    static let currentFormat = 1

    var format: Int = StoredSchema.currentFormat
    /// In the model's order (which carries no meaning: comparisons go by name).
    var entities: [StoredEntity]

    init(entities: [StoredEntity]) {
        self.entities = entities
    }

    /// The description with entities and declarations in name order and the renames left out:
    /// equal for two schemas that differ only in order.
    var canonicalEncoding: String {
        var sorted = self
        sorted.entities = entities.sorted { $0.name < $1.name }.map { entity in
            var entity = entity
            entity.originalName = nil
            entity.rowName = nil
            entity.properties = entity.properties.sorted { $0.name < $1.name }.map { property in
                var property = property
                property.originalName = nil
                property.defaultValue = nil
                property.valueCheck = nil
                return property
            }
            entity.indexes = entity.indexes.sorted { $0.description < $1.description }
            return entity
        }
        return sorted.encoded
    }

    /// The JSON a file keeps (keys sorted, so equal schemas encode equally).
    var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Every field is a string, a number, a Boolean or an array of them.
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// The description a file keeps, or `nil` if it is not one.
    static func decode(_ text: String) -> StoredSchema? {
        try? JSONDecoder().decode(StoredSchema.self, from: Data(text.utf8))
    }

    /// The format a stored description says it is in (1 if it says nothing).
    static func decodeFormat(_ text: String) -> Int {
        struct Format: Decodable { let format: Int? }
        return (try? JSONDecoder().decode(Format.self, from: Data(text.utf8)))?.format ?? 1
    }

    /// Whether every table, column and join table has the same name here and in `other`
    /// (two descriptions of one model).
    func hasSameNames(as other: StoredSchema) -> Bool {
        storageNames == other.storageNames
    }

    private var storageNames: [String: String] {
        var names: [String: String] = [:]
        for entity in entities {
            names[entity.name] = entity.table
            for property in entity.properties {
                names[entity.name + "." + property.name] = [property.column, property.joinTable, property.joinColumn, property.orderTable].map { $0 ?? "" }.joined(separator: "|")
            }
        }
        return names
    }
}

/// One entity of a ``StoredSchema``.
struct StoredEntity: Codable, Sendable {
    var name: String
    var superentity: String?
    /// The table of the entity's hierarchy (the same for every entity of it).
    var table: String
    /// The properties the entity declares (inherited ones are its ancestors'), in model order.
    var properties: [StoredProperty]
    /// The indexes and uniqueness constraints the entity declares.
    var indexes: [StoredIndex]
    /// A model's description only: the name a previous model gave the entity.
    var originalName: String?
    /// While a migration runs only: the value its rows hold in the `entity` column, when they
    /// already carry a new name.
    var rowName: String?
    /// While a migration runs only, on a root: its table still holds rows of entities the model
    /// lacks (removed, or moving to another table), so reads keep to the model's entities.
    var holdsOtherRows = false

    private enum CodingKeys: String, CodingKey {
        case name, superentity, table, properties, indexes
    }

    init(name: String, superentity: String?, table: String, properties: [StoredProperty], indexes: [StoredIndex], originalName: String? = nil) {
        self.name = name
        self.superentity = superentity
        self.table = table
        self.properties = properties
        self.indexes = indexes
        self.originalName = originalName
    }

    /// The declared property called `name`.
    func property(named name: String) -> StoredProperty? {
        properties.first { $0.name == name }
    }
}

/// One property of a ``StoredEntity``.
struct StoredProperty: Codable, Sendable {
    /// Attribute, to-one or to-many; a string so that a new kind is one more value.
    struct Kind: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
        let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }
        init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        var description: String { rawValue }

        static let attribute = Kind(rawValue: "attribute")
        static let toOne = Kind(rawValue: "to-one")
        static let toMany = Kind(rawValue: "to-many")
    }

    var name: String
    var kind: Kind
    /// Attributes: the stored type's name (see ``StoredAttributeType``).
    var type: String?
    /// Attributes: whether `nil` is allowed.
    var isOptional: Bool?
    /// Attributes of an enum that is `CaseIterable`, of a `Codable` type, arrays and sets: the
    /// shape of the values (see ``ValueShape``); when it changes, the stored values are checked.
    var shape: String?
    /// Relationships: the destination entity.
    var destination: String?
    /// Relationships: the destination's property that points back, if any.
    var inverse: String?
    /// Relationships: `nullify`, `cascade` or `noAction`.
    var deleteRule: String?
    /// Attributes and to-ones: the column in the hierarchy's table.
    var column: String?
    /// To-manys with storage of their own: the join table (shared with a to-many inverse).
    var joinTable: String?
    /// To-manys in a join table: the column (`owner` or `target`) that holds this side's objects.
    var joinColumn: String?
    /// To-manys declared as an `Array`: `true` (absent for a set).
    var isOrdered: Bool?
    /// Ordered to-manys: the table that keeps each member's position (see
    /// ``OrderTableAccess``); membership stays where a set relationship's is.
    var orderTable: String?
    /// A model's description only: the name a previous model gave the property.
    var originalName: String?
    /// A model's description only: the initial value, for the rows that exist when the
    /// attribute is added (each dialect writes it as its literal); `nil` for optionals and
    /// relationships.
    var defaultValue: PropertyValue?
    /// A model's description only: the attribute's Swift type, and why a stored value cannot be
    /// read as it (`nil` when it can), for the check a changed ``shape`` calls for.
    var valueCheck: (type: String, failure: @Sendable (PropertyValue) -> String?)?

    private enum CodingKeys: String, CodingKey {
        case name, kind, type, isOptional, shape, destination, inverse, deleteRule, column, joinTable, joinColumn
        case isOrdered = "ordered", orderTable
    }

    /// Whether the property is stored in a column of its hierarchy's table.
    var hasColumn: Bool { kind == .attribute || kind == .toOne }

    /// ` (Status(cases 1,2))` after a type whose shape is recorded, for messages.
    private var shapeSuffix: String { shape.map { " (\($0))" } ?? "" }

    /// For messages: `String?`, `to-one Folder`, `to-many Tag`.
    var typeDescription: String {
        switch kind {
        case .attribute: StoredAttributeType(name: type ?? "?").displayName + shapeSuffix + (isOptional == true ? "?" : "")
        default: "\(isOrdered == true ? "ordered " : "")\(kind) \(destination ?? "?")"
        }
    }
}

/// An index or uniqueness constraint as an entity declares it.
struct StoredIndex: Codable, Hashable, Sendable, CustomStringConvertible {
    var properties: [String]
    var isUnique: Bool

    /// `unique(a,b)` or `index(a)`, as the SQLite index's name has it after the entity's name.
    var description: String { "\(isUnique ? "unique" : "index")(\(properties.joined(separator: ",")))" }
}
