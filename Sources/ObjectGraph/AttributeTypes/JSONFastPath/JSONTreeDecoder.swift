import Foundation

/// A `Decoder` over a ``JSONTree``: what `AttributeCoding` tries before `JSONDecoder`, which
/// costs tens of thousands of instructions and about twenty allocations for the smallest value.
///
/// It answers a request only when its answer is the one `JSONDecoder` (with the options of
/// ``AttributeCoding/decoder``) gives; for anything else it throws, and the caller decodes with
/// `JSONDecoder`, whose value or error is then the result. So it never changes what a stored
/// value decodes to, nor which error a value that cannot be decoded reports. It leaves to
/// `JSONDecoder`: the types `JSONDecoder` treats specially (`Date`, `Data`, `URL`, `Decimal`),
/// numbers with a fraction or an exponent, integers a `Double` (or `Float`) cannot hold exactly,
/// strings with escapes, duplicate keys, `superDecoder()`, and every type mismatch or missing key.
struct JSONTreeDecoder: Decoder {
    /// A request this decoder leaves to `JSONDecoder`.
    struct Unanswered: Error {}

    let tree: JSONTree
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `json` decoded as `Value`, or `nil` when `JSONDecoder` must decide.
    static func decode<Value: Decodable>(_ type: Value.Type, from json: String) -> Value? {
        guard let tree = JSONTree.parse(json) else { return nil }
        return try? JSONTreeDecoder(tree: tree, codingPath: []).value(Value.self)
    }

    /// The tree decoded as `T`: the primitives read directly, other types through `init(from:)`.
    func value<T: Decodable>(_ type: T.Type) throws -> T {
        if let primitive = try tree.primitive(T.self) { return primitive }
        if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self { throw Unanswered() }
        return try T(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let entries) = tree else { throw Unanswered() }
        return KeyedDecodingContainer(Keyed<Key>(entries: entries, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = tree else { throw Unanswered() }
        return Unkeyed(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        Single(decoder: self)
    }

    /// JSONDecoder's key for an element of an array in a coding path.
    private struct IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { "Index \(intValue ?? 0)" }
        init(index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let entries: [(key: String, value: JSONTree)]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { entries.compactMap { Key(stringValue: $0.key) } }

        func contains(_ key: Key) -> Bool {
            let name = key.stringValue
            return entries.contains { $0.key == name }
        }

        /// The value under `key`: it must be there once.
        private func tree(for key: Key) throws -> JSONTree {
            let name = key.stringValue
            var found: JSONTree?
            for entry in entries where entry.key == name {
                guard found == nil else { throw Unanswered() }
                found = entry.value
            }
            guard let found else { throw Unanswered() }
            return found
        }

        private func decoder(for key: Key) throws -> JSONTreeDecoder {
            JSONTreeDecoder(tree: try tree(for: key), codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if case .null = try tree(for: key) { return true }
            return false
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try tree(for: key).bool() }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try tree(for: key).string() }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try tree(for: key).floatingPoint(Double.self) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try tree(for: key).floatingPoint(Float.self) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try tree(for: key).integer(Int.self) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try tree(for: key).integer(Int8.self) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try tree(for: key).integer(Int16.self) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try tree(for: key).integer(Int32.self) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try tree(for: key).integer(Int64.self) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try tree(for: key).integer(UInt.self) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try tree(for: key).integer(UInt8.self) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try tree(for: key).integer(UInt16.self) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try tree(for: key).integer(UInt32.self) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try tree(for: key).integer(UInt64.self) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(for: key).value(T.self) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder(for: key).container(keyedBy: NestedKey.self)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder(for: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { throw Unanswered() }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw Unanswered() }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [JSONTree]
        let codingPath: [any CodingKey]
        var currentIndex = 0

        init(elements: [JSONTree], codingPath: [any CodingKey]) {
            self.elements = elements
            self.codingPath = codingPath
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        /// The next element, consumed only if `read` answers.
        private mutating func next<T>(_ read: (JSONTree) throws -> T) throws -> T {
            guard !isAtEnd else { throw Unanswered() }
            let value = try read(elements[currentIndex])
            currentIndex += 1
            return value
        }

        /// `read` of a decoder for the next element, which is consumed only if `read` answers.
        private mutating func nextDecoder<T>(_ read: (JSONTreeDecoder) throws -> T) throws -> T {
            let path = codingPath + [IndexKey(index: currentIndex)]
            return try next { try read(JSONTreeDecoder(tree: $0, codingPath: path)) }
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { throw Unanswered() }
            guard case .null = elements[currentIndex] else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.bool() } }
        mutating func decode(_ type: String.Type) throws -> String { try next { try $0.string() } }
        mutating func decode(_ type: Double.Type) throws -> Double { try next { try $0.floatingPoint(Double.self) } }
        mutating func decode(_ type: Float.Type) throws -> Float { try next { try $0.floatingPoint(Float.self) } }
        mutating func decode(_ type: Int.Type) throws -> Int { try next { try $0.integer(Int.self) } }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.integer(Int8.self) } }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.integer(Int16.self) } }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.integer(Int32.self) } }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.integer(Int64.self) } }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.integer(UInt.self) } }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.integer(UInt8.self) } }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.integer(UInt16.self) } }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.integer(UInt32.self) } }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.integer(UInt64.self) } }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try nextDecoder { try $0.value(T.self) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try nextDecoder { try $0.container(keyedBy: NestedKey.self) }
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try nextDecoder { try $0.unkeyedContainer() }
        }

        mutating func superDecoder() throws -> any Decoder { throw Unanswered() }
    }

    private struct Single: SingleValueDecodingContainer {
        let decoder: JSONTreeDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool {
            if case .null = decoder.tree { return true }
            return false
        }

        func decode(_ type: Bool.Type) throws -> Bool { try decoder.tree.bool() }
        func decode(_ type: String.Type) throws -> String { try decoder.tree.string() }
        func decode(_ type: Double.Type) throws -> Double { try decoder.tree.floatingPoint(Double.self) }
        func decode(_ type: Float.Type) throws -> Float { try decoder.tree.floatingPoint(Float.self) }
        func decode(_ type: Int.Type) throws -> Int { try decoder.tree.integer(Int.self) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decoder.tree.integer(Int8.self) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decoder.tree.integer(Int16.self) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decoder.tree.integer(Int32.self) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decoder.tree.integer(Int64.self) }
        func decode(_ type: UInt.Type) throws -> UInt { try decoder.tree.integer(UInt.self) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.tree.integer(UInt8.self) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.tree.integer(UInt16.self) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.tree.integer(UInt32.self) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.tree.integer(UInt64.self) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.value(T.self) }
    }
}

extension JSONTree {
    typealias Unanswered = JSONTreeDecoder.Unanswered

    func bool() throws -> Bool {
        guard case .bool(let value) = self else { throw Unanswered() }
        return value
    }

    func string() throws -> String {
        guard case .string(let value) = self else { throw Unanswered() }
        return value
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let value: I?
        switch self {
        case .integer(let int): value = I(exactly: int)
        case .unsignedInteger(let int): value = I(exactly: int)
        default: value = nil
        }
        guard let value else { throw Unanswered() }
        return value
    }

    /// An integer the type holds exactly (so that no rounding rule can differ); fractions and
    /// exponents never reach here (see ``parse(_:)``).
    func floatingPoint<F: BinaryFloatingPoint>(_ type: F.Type) throws -> F {
        let exactLimit = UInt64(1) << (F.significandBitCount + 1)
        guard case .integer(let int) = self, int.magnitude <= exactLimit else { throw Unanswered() }
        return F(int)
    }

    /// The value as `T` when `T` is one of the types a container decodes directly; `nil` for
    /// another type. (Comparing metatypes costs a fraction of casting to them.)
    func primitive<T>(_ type: T.Type) throws -> T? {
        if T.self == String.self { return try string() as? T }
        if T.self == Int.self { return try integer(Int.self) as? T }
        if T.self == Bool.self { return try bool() as? T }
        if T.self == Double.self { return try floatingPoint(Double.self) as? T }
        if T.self == Float.self { return try floatingPoint(Float.self) as? T }
        if T.self == Int64.self { return try integer(Int64.self) as? T }
        if T.self == Int32.self { return try integer(Int32.self) as? T }
        if T.self == Int16.self { return try integer(Int16.self) as? T }
        if T.self == Int8.self { return try integer(Int8.self) as? T }
        if T.self == UInt.self { return try integer(UInt.self) as? T }
        if T.self == UInt64.self { return try integer(UInt64.self) as? T }
        if T.self == UInt32.self { return try integer(UInt32.self) as? T }
        if T.self == UInt16.self { return try integer(UInt16.self) as? T }
        if T.self == UInt8.self { return try integer(UInt8.self) as? T }
        return nil
    }
}
