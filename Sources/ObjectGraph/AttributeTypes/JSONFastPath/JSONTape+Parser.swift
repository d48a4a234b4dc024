import Foundation

extension JSONTape {
    /// Parses the subset of JSON ``JSONTape`` holds into nodes, written to a buffer the caller
    /// provides: each function takes the position where its part starts and returns the one
    /// after it, or `nil` when the text falls outside the subset (or the buffer is full).
    struct Parser {
        private let nodes: UnsafeMutableBufferPointer<Node>
        /// The nodes written so far.
        private(set) var count = 0

        /// Deeper documents go to `JSONDecoder`, which knows its own limit.
        private static let maximumDepth = 256
        /// Larger objects go to `JSONDecoder`, rather than a quadratic search for duplicate keys.
        private static let maximumMembers = 256

        init(nodes: UnsafeMutableBufferPointer<Node>) {
            self.nodes = nodes
        }

        func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
            var position = start
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
                default: return position
                }
            }
            return position
        }

        mutating func parseValue(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, depth: Int) -> Int? {
            let position = skipWhitespace(bytes, from: start)
            guard position < bytes.count, depth < Self.maximumDepth else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return parseObject(bytes, at: position, depth: depth)
            case UInt8(ascii: "["): return parseArray(bytes, at: position, depth: depth)
            case UInt8(ascii: "\""): return parseString(bytes, at: position, as: .string)
            case UInt8(ascii: "t"): return parseLiteral("true", bytes, at: position, as: Node(kind: .bool, payload: 1))
            case UInt8(ascii: "f"): return parseLiteral("false", bytes, at: position, as: Node(kind: .bool))
            case UInt8(ascii: "n"): return parseLiteral("null", bytes, at: position, as: Node(kind: .null))
            default: return parseNumber(bytes, at: position)
            }
        }

        /// Appends `node`, ending where it starts (a container's end is set once its contents
        /// are in); `false` when the buffer is full.
        private mutating func append(_ node: Node) -> Bool {
            guard count < nodes.count else { return false }
            var node = node
            node.next = Int32(count + 1)
            (nodes.baseAddress! + count).initialize(to: node)
            count += 1
            return true
        }

        /// The containers' contents: members of an object (`"key": value`) or elements of an
        /// array, separated by commas, up to `close`.
        private mutating func parseContainer(
            _ kind: Kind, _ bytes: UnsafeBufferPointer<UInt8>, at start: Int, depth: Int, close: UInt8
        ) -> Int? {
            let index = count
            guard append(Node(kind: kind)) else { return nil }
            var position = skipWhitespace(bytes, from: start + 1)
            if position < bytes.count, bytes[position] == close { return position + 1 }
            var members = 0
            while true {
                if kind == .object {
                    position = skipWhitespace(bytes, from: position)
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "\""),
                          let afterKey = parseString(bytes, at: position, as: .key) else { return nil }
                    members += 1
                    guard members <= Self.maximumMembers, !isDuplicateKey(count - 1, inObjectAt: index, bytes) else { return nil }
                    position = skipWhitespace(bytes, from: afterKey)
                    guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                    position += 1
                }
                guard let afterValue = parseValue(bytes, at: position, depth: depth + 1) else { return nil }
                nodes[index].next = Int32(count)
                position = skipWhitespace(bytes, from: afterValue)
                guard position < bytes.count else { return nil }
                let separator = bytes[position]
                position += 1
                if separator == close { return position }
                guard separator == UInt8(ascii: ",") else { return nil }
            }
        }

        private mutating func parseObject(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, depth: Int) -> Int? {
            parseContainer(.object, bytes, at: start, depth: depth, close: UInt8(ascii: "}"))
        }

        private mutating func parseArray(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, depth: Int) -> Int? {
            parseContainer(.array, bytes, at: start, depth: depth, close: UInt8(ascii: "]"))
        }

        /// Whether the key at `keyIndex`, the newest of the object at `object`, is already one of its keys.
        private func isDuplicateKey(_ keyIndex: Int, inObjectAt object: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            let new = nodes[keyIndex]
            let length = Int(new.end - new.start)
            var cursor = object + 1
            while cursor < keyIndex {
                let old = nodes[cursor]
                if Int(old.end - old.start) == length,
                   length == 0 || memcmp(bytes.baseAddress! + Int(old.start), bytes.baseAddress! + Int(new.start), length) == 0 {
                    return true
                }
                cursor = Int(nodes[cursor + 1].next)
            }
            return false
        }

        /// A string without escapes or control characters (the text is valid UTF-8: it came
        /// from a `String`).
        private mutating func parseString(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, as kind: Kind) -> Int? {
            var position = start + 1
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    return append(Node(kind: kind, start: Int32(start + 1), end: Int32(position))) ? position + 1 : nil
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                // Keys are ASCII: `JSONDecoder` compares keys as `String`s, and distinct ASCII
                // keys are never equal as strings (NFC and NFD spellings of one key would be).
                if kind == .key, byte >= 0x80 { return nil }
                position += 1
            }
            return nil
        }

        private mutating func parseLiteral(_ word: StaticString, _ bytes: UnsafeBufferPointer<UInt8>, at start: Int, as node: Node) -> Int? {
            let length = word.utf8CodeUnitCount
            guard bytes.count - start >= length else { return nil }
            for offset in 0..<length where bytes[start + offset] != word.utf8Start[offset] { return nil }
            return append(node) ? start + word.utf8CodeUnitCount : nil
        }

        /// `-?(0|[1-9][0-9]*)` not followed by a fraction or an exponent, within 64 bits (not `-0`).
        private mutating func parseNumber(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
            let negative = bytes[start] == UInt8(ascii: "-")
            var position = negative ? start + 1 : start
            let firstDigit = position
            var magnitude: UInt64 = 0
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { return nil }
                magnitude = sum
                position += 1
            }
            let digits = position - firstDigit
            guard digits > 0, digits == 1 || bytes[firstDigit] != UInt8(ascii: "0") else { return nil }
            if position < bytes.count {
                let next = bytes[position]
                if next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") { return nil }
            }
            if negative {
                // `-0` is an integer 0 but a Double -0.0: left to `JSONDecoder`.
                guard magnitude != 0, magnitude <= UInt64(Int64.max) + 1 else { return nil }
                return append(Node(kind: .integer, payload: magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))) ? position : nil
            }
            if magnitude <= UInt64(Int64.max) {
                return append(Node(kind: .integer, payload: Int64(magnitude))) ? position : nil
            }
            return append(Node(kind: .unsignedInteger, payload: Int64(bitPattern: magnitude))) ? position : nil
        }
    }
}
