/// The SQL a store speaks. Every piece of SQL text that differs between SQLite and PostgreSQL
/// is decided here — quoting, placeholders, type names, upserts — so that statement builders
/// and migration plans are written once and rendered for either.
enum SQLDialect: Sendable, CaseIterable {
    case sqlite
    case postgreSQL

    /// `name` as an identifier: in double quotes, each `"` doubled. PostgreSQL keeps only the
    /// first 63 bytes of a name, so a longer one is first shortened to a unique name of that
    /// length (see ``fittedName(_:)``).
    func quotedName(_ name: String) -> String {
        SQLQuoting.enclosed(fittedName(name), in: UInt8(ascii: "\""))
    }

    /// `text` as a string literal: in single quotes, each `'` doubled. (PostgreSQL connections
    /// run with `standard_conforming_strings` on, so a backslash is just a backslash.)
    func literal(_ text: String) -> String {
        SQLQuoting.enclosed(text, in: UInt8(ascii: "'"))
    }

    /// The placeholder of the `number`th parameter (from 1): `?1` or `$1`.
    func placeholder(_ number: Int) -> String {
        switch self {
        case .sqlite: "?\(number)"
        case .postgreSQL: "$\(number)"
        }
    }

    /// The longest name the database keeps whole, in UTF-8 bytes (`nil`: no limit).
    var nameLengthLimit: Int? {
        switch self {
        case .sqlite: nil
        case .postgreSQL: 63
        }
    }

    /// `name` as the database will store it: unchanged when it fits ``nameLengthLimit``;
    /// otherwise its start, `~` and eight hex digits of a hash of the whole name, so that two
    /// long names that share a start stay apart and the same name always maps the same way.
    func fittedName(_ name: String) -> String {
        guard let limit = nameLengthLimit, name.utf8.count > limit else { return name }
        let suffix = "~" + Self.hashText(of: name)
        var start = ""
        for character in name {
            guard start.utf8.count + String(character).utf8.count + suffix.utf8.count <= limit else { break }
            start.append(character)
        }
        return start + suffix
    }

    /// FNV-1a of the UTF-8 bytes, folded to 32 bits: stable across runs and platforms, which
    /// Swift's `Hasher` is not.
    private static func hashText(of name: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let folded = UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
        let digits = String(folded, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
