/// Reading a statement's text as PostgreSQL's lexer does, as far as the SQL log needs it.
enum PostgreSQLStatementText {
    /// `sql` with each `$n` placeholder replaced by its value as a literal, for the SQL log.
    /// Placeholders inside quoted text and quoted names are left alone.
    static func expanding(_ sql: String, with parameters: [PostgreSQLValue]) -> String {
        guard !parameters.isEmpty else { return sql }
        var output = ""
        var quote: Character?
        var index = sql.startIndex
        while index < sql.endIndex {
            let character = sql[index]
            if let open = quote {
                output.append(character)
                if character == open { quote = nil }  // a doubled quote closes and reopens: same text
                index = sql.index(after: index)
                continue
            }
            if character == "'" || character == "\"" {
                quote = character
            } else if character == "$" {
                let digits = sql[sql.index(after: index)...].prefix { $0.isASCII && $0.isNumber }
                if let number = Int(digits), number >= 1, number <= parameters.count {
                    output += parameters[number - 1].literalForLog
                    index = digits.endIndex
                    continue
                }
            }
            output.append(character)
            index = sql.index(after: index)
        }
        return output
    }
}
