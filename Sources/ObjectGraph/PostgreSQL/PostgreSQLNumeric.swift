import Foundation

/// PostgreSQL's binary `numeric`: a count of base-10000 digits, the weight (the power of 10000
/// of the first digit), a sign word, the display scale (digits after the point), then the digits
/// as 16-bit big-endian words. Read into its exact decimal text, which `Decimal` parses exactly.
enum PostgreSQLNumeric {
    private static let negative: UInt16 = 0x4000
    private static let notANumber: UInt16 = 0xC000
    private static let negativeInfinitySign: UInt16 = 0xF000

    /// Whether the bytes are `-Infinity` (PostgreSQL 14 and later), which a store writes for a
    /// `Decimal` NaN (see ``PostgreSQLValue/parameter(_:as:)``).
    static func isNegativeInfinity(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count >= 8 else { return false }
        let start = bytes.startIndex
        let high = bytes[bytes.index(start, offsetBy: 4)]
        let low = bytes[bytes.index(start, offsetBy: 5)]
        return UInt16(high) << 8 | UInt16(low) == negativeInfinitySign
    }

    /// The value, or `nil` for bytes that are not a numeric or for ±infinity, which `Decimal`
    /// cannot hold. NaN is `Decimal.nan`.
    static func decimal(fromBinary bytes: some Collection<UInt8>) -> Decimal? {
        let words = stride(from: 0, to: bytes.count - 1, by: 2).map { offset -> UInt16 in
            let high = bytes[bytes.index(bytes.startIndex, offsetBy: offset)]
            let low = bytes[bytes.index(bytes.startIndex, offsetBy: offset + 1)]
            return UInt16(high) << 8 | UInt16(low)
        }
        guard words.count >= 4 else { return nil }
        let digitCount = Int(Int16(bitPattern: words[0]))
        let weight = Int(Int16(bitPattern: words[1]))
        let sign = words[2]
        let scale = Int(Int16(bitPattern: words[3]))
        guard sign != notANumber else { return .nan }
        guard sign == 0 || sign == negative, digitCount >= 0, words.count == 4 + digitCount else { return nil }
        let digits = words[4...].map(Int.init)
        guard let text = decimalText(digits: digits, weight: weight, scale: scale, isNegative: sign == negative) else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// `-123.4500` from the base-10000 digits `[123, 4500]`, weight 0, scale 4.
    static func decimalText(digits: [Int], weight: Int, scale: Int, isNegative: Bool) -> String? {
        guard digits.allSatisfy({ (0..<10_000).contains($0) }) else { return nil }
        func group(_ index: Int) -> Int { index >= 0 && index < digits.count ? digits[index] : 0 }
        func padded(_ value: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: 4 - text.count) + text
        }
        var integerPart = ""
        if weight >= 0 {
            integerPart = String(group(0))
            for index in stride(from: 1, through: weight, by: 1) { integerPart += padded(group(index)) }
        } else {
            integerPart = "0"
        }
        var fraction = ""
        // The first fractional group is number weight + 1 in the digit list.
        var index = weight + 1
        while fraction.count < scale {
            fraction += padded(group(index))
            index += 1
        }
        fraction = String(fraction.prefix(scale))
        let body = fraction.isEmpty ? integerPart : integerPart + "." + fraction
        return (isNegative ? "-" : "") + body
    }
}
