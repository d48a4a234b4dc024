/// JSON text parsed into a small tree, for ``JSONTreeDecoder``: only the part of JSON whose
/// meaning is beyond doubt — objects, arrays, `true`, `false`, `null`, integers written plainly
/// and strings without escapes. Anything else (a fraction or an exponent, an escape, an integer
/// beyond 64 bits, text that is not JSON) makes ``parse(_:)`` return `nil`, and the caller decodes
/// with `JSONDecoder`, which then decides: the tree never gives a value `JSONDecoder` would not.
enum JSONTree {
    case object([(key: String, value: JSONTree)])
    case array([JSONTree])
    case string(String)
    case integer(Int64)
    /// An integer above `Int64.max`.
    case unsignedInteger(UInt64)
    case bool(Bool)
    case null

    /// The tree of `text`, or `nil` when it falls outside the subset above.
    static func parse(_ text: String) -> JSONTree? {
        var text = text
        return text.withUTF8 { bytes in
            var parser = Parser(bytes: bytes)
            guard let tree = parser.value(depth: 0) else { return nil }
            parser.skipWhitespace()
            return parser.position == bytes.count ? tree : nil
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        /// Deeper documents go to `JSONDecoder`, which knows its own limit.
        private static let maximumDepth = 256

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) -> JSONTree? {
            skipWhitespace()
            guard position < bytes.count, depth < Self.maximumDepth else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONTree.string)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return number()
            }
        }

        private mutating func object(depth: Int) -> JSONTree? {
            position += 1
            var entries: [(key: String, value: JSONTree)] = []
            entries.reserveCapacity(4)
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(entries)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                guard let value = value(depth: depth + 1) else { return nil }
                entries.append((key, value))
                skipWhitespace()
                guard position < bytes.count else { return nil }
                let separator = bytes[position]
                position += 1
                if separator == UInt8(ascii: "}") { return .object(entries) }
                guard separator == UInt8(ascii: ",") else { return nil }
            }
        }

        private mutating func array(depth: Int) -> JSONTree? {
            position += 1
            var elements: [JSONTree] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipWhitespace()
                guard position < bytes.count else { return nil }
                let separator = bytes[position]
                position += 1
                if separator == UInt8(ascii: "]") { return .array(elements) }
                guard separator == UInt8(ascii: ",") else { return nil }
            }
        }

        /// A string without escapes or control characters (the text is valid UTF-8: it came
        /// from a `String`).
        private mutating func string() -> String? {
            position += 1
            let start = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                    position += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                position += 1
            }
            return nil
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - position >= count else { return false }
            for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] { return false }
            position += count
            return true
        }

        /// `-?(0|[1-9][0-9]*)` not followed by a fraction or an exponent, within 64 bits (not `-0`).
        private mutating func number() -> JSONTree? {
            let negative = bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            let start = position
            var magnitude: UInt64 = 0
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { return nil }
                magnitude = sum
                position += 1
            }
            let digits = position - start
            guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            if position < bytes.count {
                let next = bytes[position]
                if next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") { return nil }
            }
            if negative {
                // `-0` is an integer 0 but a Double -0.0: left to `JSONDecoder`.
                guard magnitude != 0, magnitude <= UInt64(Int64.max) + 1 else { return nil }
                return .integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
            }
            return magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .unsignedInteger(magnitude)
        }
    }
}
