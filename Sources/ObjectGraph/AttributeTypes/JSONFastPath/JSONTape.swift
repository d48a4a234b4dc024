import Foundation

/// JSON text parsed into a flat list of nodes, for ``JSONTapeDecoder``: only the part of JSON
/// whose meaning is beyond doubt — objects with ASCII keys and no key twice, arrays, `true`,
/// `false`, `null`, integers written plainly and strings without escapes. Anything else (a
/// fraction or an exponent, an escape, an integer beyond 64 bits, a key that is not ASCII or is
/// there twice, text that is not JSON) makes ``parse(_:)`` fail, and the caller decodes with
/// `JSONDecoder`, which then decides: the tape never gives a value `JSONDecoder` would not.
///
/// A container's node is followed by its contents, an object's as key and value nodes in turn,
/// and records where its contents end, so that a lookup skips a member's value without reading
/// it. One allocation a document at most, its nodes stored after the text's reference (none once
/// the thread has a spare tape, see ``SpareTape``); decoders and
/// containers share the tape by reference, which keeps them small enough for an existential's
/// inline buffer.
final class JSONTape: ManagedBuffer<JSONTape.Header, JSONTape.Node> {
    enum Kind: UInt8 {
        case object, array, key, string, integer, unsignedInteger, bool, null
    }

    struct Node {
        var kind: Kind
        /// The integer of an `integer` (its bits for an `unsignedInteger`), 1 for `true`.
        var payload: Int64 = 0
        /// The bytes of a `key` or a `string` (without quotes).
        var start: Int32 = 0
        var end: Int32 = 0
        /// The index of the node after this one and everything it contains.
        var next: Int32 = 0
    }

    struct Header {
        /// The text, in contiguous UTF-8.
        var text: String
        /// The nodes written.
        var count: Int
        /// The nodes there is room for.
        let capacity: Int
        /// Whether a request was declined (see ``JSONTape/decline()``).
        var declined = false
    }

    /// The nodes there is room for.
    var nodeCapacity: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity } }

    /// The tape of `text`, or `nil` when it falls outside the subset above. The thread's spare
    /// tape holds it if it is large enough (see ``SpareTape``); hand the tape back with
    /// ``SpareTape/keep(_:)`` once decoded.
    static func parse(_ text: String) -> JSONTape? {
        var text = text
        text.makeContiguousUTF8()
        let byteCount = text.utf8.count
        guard byteCount < Int(Int32.max) else { return nil }
        // Every node but the last takes two bytes at least (a value and a separator).
        let capacity = byteCount / 2 + 2
        var tape = SpareTape.take(capacity: capacity)
            ?? unsafeDowncast(create(minimumCapacity: capacity) { _ in Header(text: "", count: 0, capacity: capacity) }, to: JSONTape.self)
        let parsed = tape.withUnsafeMutablePointers { header, nodes -> Bool in
            var parser = Parser(nodes: UnsafeMutableBufferPointer(start: nodes, count: header.pointee.capacity))
            let complete = text.utf8.withContiguousStorageIfAvailable { bytes in
                parser.parseValue(bytes, at: 0, depth: 0).map { parser.skipWhitespace(bytes, from: $0) == bytes.count } ?? false
            }
            guard complete == true else { return false }
            header.pointee.count = parser.count
            header.pointee.text = text
            return true
        }
        guard parsed else {
            SpareTape.keep(&tape)
            return nil
        }
        return tape
    }

    /// Forgets the text (a spare tape keeps no value alive), the nodes and any declined request.
    func clear() {
        withUnsafeMutablePointerToHeader {
            $0.pointee.text = ""
            $0.pointee.count = 0
            $0.pointee.declined = false
        }
    }

    /// Notes that a request over this tape is left to `JSONDecoder`, and returns the error to
    /// throw. The note stays: an `init(from:)` may catch the error (`try?`, a default value) and
    /// finish with a value `JSONDecoder` would not give, so a decode that declined anything is
    /// decided by `JSONDecoder` whatever it returned.
    func decline() -> JSONTapeDecoder.Unanswered {
        withUnsafeMutablePointerToHeader { $0.pointee.declined = true }
        return JSONTapeDecoder.Unanswered()
    }

    /// Whether a request over this tape was declined since it was parsed.
    var hasDeclined: Bool { withUnsafeMutablePointerToHeader { $0.pointee.declined } }

    /// The node at `index`.
    func node(_ index: Int) -> Node {
        // Through the pointers: the `header` property would check exclusive access on every read.
        withUnsafeMutablePointers { header, nodes in
            precondition(index >= 0 && index < header.pointee.count, "a node index within the tape")
            return nodes[index]
        }
    }

    /// Calls `body` with the text's bytes.
    private func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        // Always available: the text was made contiguous.
        withUnsafeMutablePointerToHeader { $0.pointee.text.utf8.withContiguousStorageIfAvailable(body)! }
    }

    // MARK: Reading

    /// The text of the key or string node at `index`.
    func text(at index: Int) -> String {
        let node = self.node(index)
        return withBytes { all in
            String(decoding: UnsafeBufferPointer(rebasing: all[Int(node.start)..<Int(node.end)]), as: UTF8.self)
        }
    }

    /// The key nodes of the object at `index`; each one's value is the node after it.
    func keys(of index: Int) -> [Int] {
        var result: [Int] = []
        var cursor = index + 1
        while cursor < Int(node(index).next) {
            result.append(cursor)
            cursor = Int(node(cursor + 1).next)
        }
        return result
    }

    /// The value node under `name` in the object at `index`, if there is one (there is at
    /// most one: see ``parse(_:)``). Keys are ASCII (see ``Parser``), so bytes decide, except
    /// for a name that is not ASCII: `JSONDecoder` matches keys as `String`s, and a
    /// non-ASCII name can equal an ASCII key (U+212A, the Kelvin sign, is "K"), so that lookup
    /// is declined.
    func value(named name: String, inObjectAt index: Int) -> Int? {
        var name = name
        return name.withUTF8 { utf8 in
            if utf8.contains(where: { $0 >= 0x80 }) {
                _ = decline()
                return nil
            }
            return withBytes { all in
                var cursor = index + 1
                let end = Int(node(index).next)
                while cursor < end {
                    let key = node(cursor)
                    if Int(key.end - key.start) == utf8.count,
                       utf8.isEmpty || memcmp(all.baseAddress! + Int(key.start), utf8.baseAddress!, utf8.count) == 0 {
                        return cursor + 1
                    }
                    cursor = Int(node(cursor + 1).next)
                }
                return nil
            }
        }
    }
}
