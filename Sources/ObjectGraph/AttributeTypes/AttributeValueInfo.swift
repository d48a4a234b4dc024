/// What the store needs to know about an attribute's Swift type beyond its ``AttributeType``,
/// learned once per class from its ``Attribute`` wrapper (where the type is known).
struct AttributeValueInfo: Sendable {
    /// The Swift type declared, for messages (`Status?`).
    let typeName: String
    /// The Swift type a column of the attribute holds values of (an enum's raw value type),
    /// which names the stored type in the schema.
    let storageType: any Any.Type
    /// Whether SQL may order the stored values for orderings and sorts: the type orders as its
    /// stored form does. An enum orders by its own `<`, which may not be its raw values' order.
    let ordersByStoredValue: Bool
    /// See ``ValueShape``: changing it makes opening a file check the stored values.
    let shape: String?
    /// Why a stored value cannot be read as the type, or `nil` when it can.
    let failure: @Sendable (PropertyValue) -> String?
    /// Whether every row read from a file is checked with ``failure`` (values whose type may
    /// lose cases: enums), instead of only the reads of the property.
    let checksRows: Bool
    /// For an enum whose cases are listed (`CaseIterable`), the stored form of each case's raw
    /// value: a row holding one of them needs no ``failure`` check.
    let storedCaseValues: Set<PropertyValue>?
    /// The ``AttributeReader`` of the type (an `AttributeReader<Value>`).
    let reader: any AnyObject & Sendable

    init<Value>(for type: Value.Type) {
        typeName = "\(Value.self)"
        storageType = AttributeType.storageType(of: Value.self)
        let attribute = AttributeType.of(Value.self)?.type
        let isPrimitive = attribute?.isPrimitive ?? true
        let rawType = Self.enumType(Value.self)
        ordersByStoredValue = isPrimitive && rawType == nil || attribute == .decimal || rawType.map(Self.ordersByRawValue) ?? false
        shape = isPrimitive && rawType == nil ? nil : ValueShape.of(Value.self)
        let isSet = (Value.self as? any AttributeCollection.Type)?.isSet ?? false
        let reader = AttributeReader<Value>.make()
        self.reader = reader
        failure = { stored in
            do throws(AttributeCodingError) {
                let value = try reader.read(stored)
                // A set reads an array that holds an element twice, keeping it once: data lost.
                if isSet, case .string(let json) = stored, let elements = AttributeCoding.jsonArrayCount(json),
                   let count = (value as? any Collection)?.count, count != elements {
                    return "it holds an element more than once, which a Set cannot keep"
                }
                return nil
            } catch {
                return error.description
            }
        }
        checksRows = rawType != nil
        storedCaseValues = rawType.flatMap(Self.storedCaseValues)
    }

    /// The stored forms of the raw values of `type`'s cases, if it lists them.
    private static func storedCaseValues(_ type: any RawRepresentable.Type) -> Set<PropertyValue>? {
        guard let listed = type as? any (CaseIterable & RawRepresentable).Type else { return nil }
        return storedCaseValues(of: listed)
    }

    private static func storedCaseValues<Enum: CaseIterable & RawRepresentable>(of type: Enum.Type) -> Set<PropertyValue>? {
        var values: Set<PropertyValue> = []
        for value in Enum.allCases {
            guard let stored = try? AttributeCoding.storedValue(of: value.rawValue) else { return nil }
            values.insert(stored)
        }
        return values
    }

    /// The `RawRepresentable` type an attribute of `type` is stored as the raw value of (through
    /// an optional), or `nil`.
    private static func enumType(_ type: Any.Type) -> (any RawRepresentable.Type)? {
        var wrapped = type
        while let optional = wrapped as? any OptionalAttribute.Type { wrapped = optional.wrappedType }
        guard let raw = wrapped as? any RawRepresentable.Type, let stored = AttributeType.of(wrapped), stored.type != .codable else { return nil }
        return raw
    }

    /// Whether `type` orders its values as SQL orders their raw values: it is `Comparable` and
    /// `CaseIterable`, and sorting its cases by `<` gives the order of their stored raw values
    /// (numbers as numbers, strings as Swift compares them).
    private static func ordersByRawValue(_ type: any RawRepresentable.Type) -> Bool {
        guard let comparable = type as? any (Comparable & CaseIterable & RawRepresentable).Type else { return false }
        return casesOrderByRawValue(comparable)
    }

    private static func casesOrderByRawValue<Enum: Comparable & CaseIterable & RawRepresentable>(_ type: Enum.Type) -> Bool {
        let cases = Array(Enum.allCases)
        let stored = cases.map { try? AttributeCoding.storedValue(of: $0.rawValue) }
        for left in cases.indices {
            for right in cases.indices where left != right {
                guard let storedOrder = storedOrder(stored[left], stored[right]) else { return false }
                if (cases[left] < cases[right]) != storedOrder { return false }
            }
        }
        return true
    }

    /// Whether SQL puts `left` before `right`, for the stored forms SQL orders as Swift does.
    private static func storedOrder(_ left: PropertyValue?, _ right: PropertyValue?) -> Bool? {
        switch (left, right) {
        case let (.integer(a)?, .integer(b)?): a < b
        case let (.string(a)?, .string(b)?): a < b
        case let (.double(a)?, .double(b)?) where !a.isNaN && !b.isNaN: a < b
        default: nil
        }
    }
}
