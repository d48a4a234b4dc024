import Foundation

/// A `Decoder` over a ``JSONTape``: what `AttributeCoding` tries before `JSONDecoder`, which
/// costs tens of thousands of instructions and about twenty allocations for the smallest value.
///
/// It answers a request only when its answer is the one `JSONDecoder` (with the options of
/// ``AttributeCoding/decoder``) gives; for anything else it throws, and the caller decodes with
/// `JSONDecoder`, whose value or error is then the result. So it never changes what a stored
/// value decodes to, nor which error a value that cannot be decoded reports. It leaves to
/// `JSONDecoder`: the types `JSONDecoder` treats specially (`Date`, `Data`, `URL`, `Decimal`),
/// numbers with a fraction or an exponent, integers a `Double` (or `Float`) cannot hold exactly,
/// strings with escapes, keys that are not ASCII, duplicate keys, `Int128` and `UInt128`,
/// `superDecoder()`, and every type mismatch or missing key. A decode that declined anything is
/// left to `JSONDecoder` even when `init(from:)` caught the error and returned a value (see
/// ``JSONTape/decline()``); such an `init(from:)` then runs twice.
struct JSONTapeDecoder: Decoder {
    /// A request this decoder leaves to `JSONDecoder`.
    struct Unanswered: Error {}

    let tape: JSONTape
    /// The node this decoder decodes.
    let index: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `json` decoded as `Value`; throws when `JSONDecoder` must decide.
    static func decode<Value: Decodable>(_ type: Value.Type, from json: String) throws(Unanswered) -> Value {
        guard var tape = JSONTape.parse(json) else { throw Unanswered() }
        let value: Value
        do {
            value = try JSONTapeDecoder(tape: tape, index: 0, codingPath: []).value(Value.self)
        } catch {
            SpareTape.keep(&tape)
            throw Unanswered()
        }
        // Declined somewhere, and the error caught by `init(from:)`: its value may not be
        // JSONDecoder's.
        let declined = tape.hasDeclined
        SpareTape.keep(&tape)
        if declined { throw Unanswered() }
        return value
    }

    /// The node decoded as `T`: the primitives read directly, other types through `init(from:)`.
    func value<T: Decodable>(_ type: T.Type) throws -> T {
        if let primitive = JSONTape.Primitive(T.self) { return try tape.read(primitive, at: index, as: T.self) }
        if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self { throw tape.decline() }
        return try T(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard tape.node(index).kind == .object else { throw tape.decline() }
        return KeyedDecodingContainer(Keyed<Key>(tape: tape, index: index, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard tape.node(index).kind == .array else { throw tape.decline() }
        return Unkeyed(tape: tape, index: index, codingPath: codingPath)
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
        let tape: JSONTape
        let index: Int
        let codingPath: [any CodingKey]

        var allKeys: [Key] { tape.keys(of: index).compactMap { Key(stringValue: tape.text(at: $0)) } }

        func contains(_ key: Key) -> Bool {
            tape.value(named: key.stringValue, inObjectAt: index) != nil
        }

        /// The value node under `key`.
        private func node(for key: Key) throws -> Int {
            guard let node = tape.value(named: key.stringValue, inObjectAt: index) else { throw tape.decline() }
            return node
        }

        private func decoder(for key: Key) throws -> JSONTapeDecoder {
            JSONTapeDecoder(tape: tape, index: try node(for: key), codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool { tape.node(try node(for: key)).kind == .null }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try tape.bool(at: node(for: key)) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try tape.string(at: node(for: key)) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try tape.floatingPoint(Double.self, at: node(for: key)) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try tape.floatingPoint(Float.self, at: node(for: key)) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try tape.integer(Int.self, at: node(for: key)) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try tape.integer(Int8.self, at: node(for: key)) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try tape.integer(Int16.self, at: node(for: key)) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try tape.integer(Int32.self, at: node(for: key)) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try tape.integer(Int64.self, at: node(for: key)) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try tape.integer(UInt.self, at: node(for: key)) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try tape.integer(UInt8.self, at: node(for: key)) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try tape.integer(UInt16.self, at: node(for: key)) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try tape.integer(UInt32.self, at: node(for: key)) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try tape.integer(UInt64.self, at: node(for: key)) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(for: key).value(T.self) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder(for: key).container(keyedBy: NestedKey.self)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder(for: key).unkeyedContainer()
        }

        func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { throw tape.decline() }
        func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { throw tape.decline() }
        func superDecoder() throws -> any Decoder { throw tape.decline() }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw tape.decline() }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let tape: JSONTape
        let codingPath: [any CodingKey]
        let count: Int?
        /// The node of the next element; the array's end once at the end.
        private var cursor: Int
        private let end: Int
        var currentIndex = 0

        init(tape: JSONTape, index: Int, codingPath: [any CodingKey]) {
            self.tape = tape
            self.codingPath = codingPath
            cursor = index + 1
            end = Int(tape.node(index).next)
            var count = 0
            var element = cursor
            while element < end {
                count += 1
                element = Int(tape.node(element).next)
            }
            self.count = count
        }

        var isAtEnd: Bool { cursor >= end }

        /// `read` of the next element's node, which is consumed only if `read` answers.
        private mutating func next<T>(_ read: (Int) throws -> T) throws -> T {
            guard !isAtEnd else { throw tape.decline() }
            let value = try read(cursor)
            cursor = Int(tape.node(cursor).next)
            currentIndex += 1
            return value
        }

        private mutating func next<T>(_ primitive: JSONTape.Primitive) throws -> T {
            try next { [tape] in try tape.read(primitive, at: $0, as: T.self) }
        }

        /// `read` of a decoder for the next element, which is consumed only if `read` answers.
        private mutating func nextDecoder<T>(_ read: (JSONTapeDecoder) throws -> T) throws -> T {
            let path = codingPath + [IndexKey(index: currentIndex)]
            return try next { [tape] in try read(JSONTapeDecoder(tape: tape, index: $0, codingPath: path)) }
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { throw tape.decline() }
            guard tape.node(cursor).kind == .null else { return false }
            cursor = Int(tape.node(cursor).next)
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next(.bool) }
        mutating func decode(_ type: String.Type) throws -> String { try next(.string) }
        mutating func decode(_ type: Double.Type) throws -> Double { try next(.double) }
        mutating func decode(_ type: Float.Type) throws -> Float { try next(.float) }
        mutating func decode(_ type: Int.Type) throws -> Int { try next(.int) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(.int8) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(.int16) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(.int32) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(.int64) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next(.uint) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(.uint8) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(.uint16) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(.uint32) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(.uint64) }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try nextDecoder { try $0.value(T.self) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try nextDecoder { try $0.container(keyedBy: NestedKey.self) }
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try nextDecoder { try $0.unkeyedContainer() }
        }

        mutating func decode(_ type: Int128.Type) throws -> Int128 { throw tape.decline() }
        mutating func decode(_ type: UInt128.Type) throws -> UInt128 { throw tape.decline() }
        mutating func superDecoder() throws -> any Decoder { throw tape.decline() }
    }

    private struct Single: SingleValueDecodingContainer {
        let decoder: JSONTapeDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        private func read<T>(_ primitive: JSONTape.Primitive) throws -> T {
            try decoder.tape.read(primitive, at: decoder.index, as: T.self)
        }

        func decodeNil() -> Bool { decoder.tape.node(decoder.index).kind == .null }
        func decode(_ type: Bool.Type) throws -> Bool { try read(.bool) }
        func decode(_ type: String.Type) throws -> String { try read(.string) }
        func decode(_ type: Double.Type) throws -> Double { try read(.double) }
        func decode(_ type: Float.Type) throws -> Float { try read(.float) }
        func decode(_ type: Int.Type) throws -> Int { try read(.int) }
        func decode(_ type: Int8.Type) throws -> Int8 { try read(.int8) }
        func decode(_ type: Int16.Type) throws -> Int16 { try read(.int16) }
        func decode(_ type: Int32.Type) throws -> Int32 { try read(.int32) }
        func decode(_ type: Int64.Type) throws -> Int64 { try read(.int64) }
        func decode(_ type: UInt.Type) throws -> UInt { try read(.uint) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try read(.uint8) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try read(.uint16) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try read(.uint32) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try read(.uint64) }
        func decode(_ type: Int128.Type) throws -> Int128 { throw decoder.tape.decline() }
        func decode(_ type: UInt128.Type) throws -> UInt128 { throw decoder.tape.decline() }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.value(T.self) }
    }
}
