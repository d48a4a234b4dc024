import Foundation

/// An attribute's type as a ``StoredSchema`` names it: the ``AttributeType``'s name, with the
/// Swift type's width where the storage class hides it (`int16`, `uint8`, `float`), so that a
/// narrowing is seen and a widening is known to be safe.
///
/// Files written by the first release recorded only `integer` and `double`; a description
/// rebuilt from them says ``legacyInteger`` and ``legacyReal`` (width unknown).
struct StoredAttributeType: Hashable, Sendable {
    let name: String

    static let legacyInteger = "integer"
    static let legacyReal = "real"

    init(name: String) {
        self.name = name
    }

    /// The name for an attribute declared as `valueType` (an optional's wrapped type), stored
    /// as `type`.
    init(valueType: Any.Type, type: AttributeType) {
        // An enum is stored as its raw value: named after the raw value's type.
        let wrapped = AttributeType.storageType(of: valueType)
        let widths: [(Any.Type, String)] = [
            (Int.self, "int\(Int.bitWidth)"), (Int8.self, "int8"), (Int16.self, "int16"), (Int32.self, "int32"),
            (Int64.self, "int64"), (UInt8.self, "uint8"), (UInt16.self, "uint16"), (UInt32.self, "uint32"),
            (Float.self, "float"), (Double.self, "double"),
        ]
        name = widths.first { $0.0 == wrapped }?.1 ?? type.rawValue
    }

    /// The storage class: what the store reads and writes.
    var attributeType: AttributeType? {
        if integerRange != nil || name == Self.legacyInteger { return .integer }
        if name == "float" || name == "double" || name == Self.legacyReal { return .double }
        return AttributeType(rawValue: name)
    }

    /// The values an integer type holds; `nil` for other types.
    var integerRange: ClosedRange<Int64>? {
        switch name {
        case "int8": Int64(Int8.min)...Int64(Int8.max)
        case "int16": Int64(Int16.min)...Int64(Int16.max)
        case "int32": Int64(Int32.min)...Int64(Int32.max)
        case "int64": Int64.min...Int64.max
        case "uint8": 0...Int64(UInt8.max)
        case "uint16": 0...Int64(UInt16.max)
        case "uint32": 0...Int64(UInt32.max)
        default: nil
        }
    }

    /// How the stored values can become values of `new`.
    enum Conversion: Equatable {
        /// They already are: same type, or a wider one.
        case kept
        /// They are if each fits in this range: a width the file did not record.
        case keptIfWithin(ClosedRange<Int64>)
        /// Only a migration stage can say.
        case notInferable
    }

    func conversion(to new: StoredAttributeType) -> Conversion {
        if name == new.name { return .kept }
        if name == Self.legacyInteger, let range = new.integerRange {
            return range == Int64.min...Int64.max ? .kept : .keptIfWithin(range)
        }
        if name == Self.legacyReal, new.name == "float" || new.name == "double" { return .kept }
        if name == "float", new.name == "double" { return .kept }
        if let old = integerRange, let wider = new.integerRange, wider.contains(old.lowerBound), wider.contains(old.upperBound) {
            return .kept
        }
        return .notInferable
    }

    /// For messages: `Int16`, `String`, `Date`.
    var displayName: String {
        switch name {
        case Self.legacyInteger: "an integer"
        case Self.legacyReal: "Double or Float"
        case "uuid": "UUID"
        case "url": "URL"
        default:
            if name.hasPrefix("uint") { "UInt" + name.dropFirst(4) } else if name.hasPrefix("int") { "Int" + name.dropFirst(3) } else { name.prefix(1).uppercased() + name.dropFirst() }
        }
    }
}

extension AttributeType {
    /// The declared type of a column holding this type: its SQLite affinity.
    var sqlColumnType: String {
        switch self {
        case .bool, .integer: "INTEGER"
        case .double, .date: "REAL"
        case .string, .url, .decimal, .codable: "TEXT"
        case .data, .uuid: "BLOB"
        }
    }
}

extension PropertyValue {
    /// The value as a SQLite literal that reads back as the value (`DEFAULT` of an added
    /// column), in the representation ``SQLiteStatement`` binds; `nil` for relationship values.
    var sqlLiteral: String? { SQLDialect.sqlite.literal(self, of: nil) }
}
