/// A `Decoder` that decodes any `Decodable` type from nothing, noting what the type asks for:
/// each key and the type decoded for it (`decodeIfPresent` as optional), the elements of
/// arrays, single values. Every request is answered with a stand-in (`0`, `""`, the first case
/// of a `CaseIterable` enum, a nested type decoded the same way), so that the type's own
/// `init(from:)` runs its normal path. See ``ValueShape``.
struct ShapeDecoder: Decoder {
    /// Stops a type that nests too deep, or a stand-in a type refuses.
    struct Stop: Error {}

    /// What one decoder was asked, shared by its containers.
    final class Recording {
        var keyed: [String: String] = [:]
        /// Keys whose values were decoded through nested containers, read when the text is.
        var nested: [String: Recording] = [:]
        var elements: [String] = []
        var single: String?
        /// The type's `init(from:)` threw on a stand-in: the shape ends there.
        var stopped = false

        var text: String {
            var parts: [String] = []
            var entries = keyed
            for (key, recording) in nested { entries[key] = recording.text }
            if !entries.isEmpty || elements.isEmpty && single == nil {
                parts.append("{" + entries.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",") + "}")
            }
            if !elements.isEmpty { parts.append("[" + elements.joined(separator: ",") + "]") }
            if let single { parts.append("=" + single) }
            return parts.joined() + (stopped ? "!" : "")
        }
    }

    let recording: Recording
    let depth: Int
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(recording: Recording, depth: Int) {
        self.recording = recording
        self.depth = depth
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        Unkeyed(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        Single(decoder: self)
    }

    /// A stand-in of `type`, its shape noted by `note`.
    func standIn<T: Decodable>(_ type: T.Type, note: (String) -> Void) throws -> T {
        do {
            let (value, shape) = try ValueShape.probe(type, depth: depth)
            note(shape)
            return value
        } catch {
            note("\(T.self)!")
            recording.stopped = true
            throw error
        }
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: ShapeDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        /// One key of any name, so that a dictionary of strings shows its values' shape.
        var allKeys: [Key] { Key(stringValue: "*").map { [$0] } ?? [] }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try decoder.standIn(type) { decoder.recording.keyed[key.stringValue] = $0 }
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            try decoder.standIn(type) { decoder.recording.keyed[key.stringValue] = $0 + "?" }
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            let nested = Recording()
            decoder.recording.nested[key.stringValue] = nested
            return KeyedDecodingContainer(Keyed<NestedKey>(decoder: ShapeDecoder(recording: nested, depth: decoder.depth + 1)))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            let nested = Recording()
            decoder.recording.nested[key.stringValue] = nested
            return Unkeyed(decoder: ShapeDecoder(recording: nested, depth: decoder.depth + 1))
        }

        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let decoder: ShapeDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { 1 }
        /// One element: enough to learn the elements' shape.
        var currentIndex = 0
        var isAtEnd: Bool { currentIndex > 0 }

        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            currentIndex += 1
            return try decoder.standIn(type) { decoder.recording.elements.append($0) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            currentIndex += 1
            return KeyedDecodingContainer(Keyed<NestedKey>(decoder: decoder))
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            currentIndex += 1
            return Unkeyed(decoder: decoder)
        }

        mutating func superDecoder() throws -> any Decoder { decoder }
    }

    private struct Single: SingleValueDecodingContainer {
        let decoder: ShapeDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try decoder.standIn(type) { decoder.recording.single = $0 }
        }
    }
}
