/// Encloses text in SQL quotes, doubling each quote inside, byte by byte: Foundation's
/// `replacingOccurrences(of:with:)` compares characters, so a quote followed by a combining mark
/// (one character with it) would not be doubled and would end the quoted text early.
enum SQLQuoting {
    /// `text` between two `quote`s (an ASCII quote character), each `quote` inside doubled.
    static func enclosed(_ text: String, in quote: UInt8) -> String {
        var bytes: [UInt8] = [quote]
        bytes.reserveCapacity(text.utf8.count + 2)
        for byte in text.utf8 {
            bytes.append(byte)
            if byte == quote { bytes.append(quote) }
        }
        bytes.append(quote)
        // Only ASCII quotes were inserted, between whole UTF-8 sequences: still valid UTF-8.
        return String(decoding: bytes, as: UTF8.self)
    }
}
