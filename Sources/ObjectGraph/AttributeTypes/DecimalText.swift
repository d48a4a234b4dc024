import Foundation

/// How a `Decimal` attribute is stored: as text whose byte order is the numbers' order, so that
/// SQLite's plain comparisons, sorts and indexes agree with Swift's `<` and `==` on `Decimal`
/// with no conversion through `Double`.
///
/// A number `0.d₁d₂…dₙ × 10ᴱ` (digits without trailing zeros, `d₁` not zero) is written as a
/// class digit — `0` NaN, `1` negative, `2` zero, `3` positive (Swift orders NaN below every
/// number) — then, for a positive number, `E + 500` in three digits and the digits; for a
/// negative one, `499 - E` in three digits, each digit `d` as `9 - d` and a closing `~`, which
/// sorts after every digit, so that a longer magnitude sorts first. Equal numbers (`1.5` and
/// `1.50`) have one form.
///
/// ```
/// 1.5    → "350115"        -1.5 → "149884~"        0 → "2"        NaN → "0"
/// ```
enum DecimalText {
    private static let bias = 500

    static func encode(_ decimal: Decimal) -> String {
        if decimal.isNaN { return "0" }
        if decimal.isZero { return "2" }
        // `description` writes every digit, without an exponent, whatever the magnitude.
        var text = Substring(decimal.description)
        let isNegative = text.first == "-"
        if isNegative { text = text.dropFirst() }
        let point = text.firstIndex(of: ".") ?? text.endIndex
        let integerDigits = text[..<point]
        let fractionDigits = point == text.endIndex ? "" : text[text.index(after: point)...]
        var digits = Array((integerDigits + fractionDigits).utf8)
        // Value = 0.digits × 10^exponent before trimming.
        var exponent = integerDigits.count
        while digits.first == UInt8(ascii: "0") {
            digits.removeFirst()
            exponent -= 1
        }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        if isNegative {
            let inverted = digits.map(invert)
            return "1" + threeDigits(bias - 1 - exponent) + String(decoding: inverted, as: UTF8.self) + "~"
        }
        return "3" + threeDigits(exponent + bias) + String(decoding: digits, as: UTF8.self)
    }

    /// The number `text` stands for, or `nil` if it is not in this form.
    static func decode(_ text: String) -> Decimal? {
        var utf8 = Array(text.utf8)
        guard let kind = utf8.first else { return nil }
        switch kind {
        case UInt8(ascii: "0"): return utf8.count == 1 ? .nan : nil
        case UInt8(ascii: "2"): return utf8.count == 1 ? 0 : nil
        case UInt8(ascii: "1"), UInt8(ascii: "3"): break
        default: return nil
        }
        let isNegative = kind == UInt8(ascii: "1")
        if isNegative {
            guard utf8.last == UInt8(ascii: "~") else { return nil }
            utf8.removeLast()
        }
        guard utf8.count > 4, let coded = Int(String(decoding: utf8[1..<4], as: UTF8.self)) else { return nil }
        var digits = Array(utf8[4...])
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        if isNegative { digits = digits.map(invert) }
        let exponent = isNegative ? bias - 1 - coded : coded - bias
        // `0.digits e exponent`, which Decimal(string:) reads exactly.
        let literal = (isNegative ? "-" : "") + "0." + String(decoding: digits, as: UTF8.self) + "e" + String(exponent)
        return Decimal(string: literal, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// The digit `9 - d` for the digit `d`.
    private static func invert(_ digit: UInt8) -> UInt8 {
        UInt8(ascii: "9") - (digit - UInt8(ascii: "0"))
    }

    private static func threeDigits(_ value: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 3 - text.count)) + text
    }
}
