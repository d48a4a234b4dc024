import Foundation
import CLibPQ

/// Where a PostgreSQL store connects: a libpq connection string, either a URI
/// (`postgresql://app@db.example.com/orders?sslmode=verify-full`) or keywords
/// (`host=db.example.com dbname=orders user=app sslmode=verify-full`).
///
/// Every libpq parameter passes through unchanged — TLS (`sslmode`, `sslrootcert`, `sslcert`,
/// …), several hosts, `target_session_attrs`, `connect_timeout`, keepalives, `options`, and the
/// `PG…` environment variables and `~/.pgpass` for whatever the string leaves out — because the
/// text goes to libpq as it is. This type only reads it, so that errors can name the server and
/// the database.
///
/// The password never leaves this value: ``description``, errors and the SQL log show the
/// server, the database and the user, and any text libpq reports is scrubbed of it.
struct PostgreSQLConnectionString: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The text as given, passed to libpq as its `dbname` with `expand_dbname`.
    private let text: String
    /// `host:port` or the socket folder, as errors name it (`db.example.com:5432`,
    /// `/run/postgresql`); several hosts are listed with commas.
    let server: String
    /// The database, or libpq's default (the user's name) when the string names none.
    let database: String
    /// The role, or libpq's default when the string names none.
    let user: String
    /// What must never be shown: the password, if the string holds one.
    private let secrets: [String]

    /// The application name the server shows in `pg_stat_activity` unless the string sets one.
    static let fallbackApplicationName = "ObjectGraph"

    /// Reads `text` with libpq's own parser.
    ///
    /// - Throws: ``ObjectGraphError/invalidConnectionString(message:)`` when libpq cannot read it
    ///   (an unknown keyword, a malformed URI); the message never holds the password.
    init(_ text: String) throws(ObjectGraphError) {
        self.text = text
        var failure: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &failure) else {
            let message = failure.map { String(cString: $0) } ?? "libpq could not read it"
            failure.map { PQfreemem($0) }
            let scrubbed = Self.scrub(message, removing: Self.passwordCandidates(in: text))
            throw .invalidConnectionString(message: scrubbed.trimmingTrailingNewlines)
        }
        defer { PQconninfoFree(options) }
        let values = Self.values(of: options)
        let environment = ProcessInfo.processInfo.environment
        let hosts = values["host"] ?? values["hostaddr"] ?? environment["PGHOST"] ?? Self.defaultSocketFolder
        let port = values["port"] ?? environment["PGPORT"] ?? "5432"
        server = Self.describeServers(hosts: hosts, port: port)
        user = values["user"] ?? environment["PGUSER"] ?? Self.currentUserName
        database = values["dbname"] ?? environment["PGDATABASE"] ?? user
        secrets = ([values["password"]].compactMap { $0 } + Self.passwordCandidates(in: text)).filter { !$0.isEmpty }
    }

    /// The keywords libpq's option array sets, with their values.
    static func values(of options: UnsafeMutablePointer<PQconninfoOption>) -> [String: String] {
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return values
    }

    /// The parameters `text` sets, as libpq reads it; `nil` if it cannot.
    static func parameters(of text: String) -> [String: String]? {
        guard let options = PQconninfoParse(text, nil) else { return nil }
        defer { PQconninfoFree(options) }
        return values(of: options)
    }

    /// `user@server/database`, with no password.
    var description: String { "postgresql://\(user)@\(server)/\(database)" }
    var debugDescription: String { description }
    /// `dump()` and `Mirror` see the description only, never the text.
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }

    /// Calls `body` with libpq's keyword and value arrays: the string as `dbname` (expanded by
    /// libpq) and a fallback application name.
    func withConnectionParameters<Result>(
        _ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafePointer<CChar>?>) -> Result
    ) -> Result {
        "dbname".withCString { dbnameKeyword in
            "fallback_application_name".withCString { applicationKeyword in
                text.withCString { textValue in
                    Self.fallbackApplicationName.withCString { applicationValue in
                        let keywords: [UnsafePointer<CChar>?] = [dbnameKeyword, applicationKeyword, nil]
                        let values: [UnsafePointer<CChar>?] = [textValue, applicationValue, nil]
                        return body(keywords, values)
                    }
                }
            }
        }
    }

    /// `message` with every secret this string holds, and `extra` (a password libpq found in
    /// `PGPASSWORD` or `~/.pgpass`), replaced by `•••`.
    func scrub(_ message: String, also extra: String? = nil) -> String {
        Self.scrub(message, removing: secrets + [extra].compactMap { $0 }.filter { !$0.isEmpty })
    }

    private static func scrub(_ message: String, removing secrets: [String]) -> String {
        var scrubbed = message
        // The longest first, so that a secret containing another is removed whole.
        for secret in secrets.sorted(by: { $0.utf8.count > $1.utf8.count }) where !secret.isEmpty {
            scrubbed = scrubbed.replacingOccurrences(of: secret, with: "•••")
        }
        return scrubbed
    }

    /// What could be a password in a string libpq could not parse: the URI's `user:password@`
    /// part and any `password=` value, raw and percent-decoded.
    private static func passwordCandidates(in text: String) -> [String] {
        var candidates: [String] = []
        if let scheme = text.range(of: "://") {
            let rest = text[scheme.upperBound...]
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                candidates.append(String(authority[authority.index(after: colon)..<at]))
            }
        }
        var remainder = Substring(text)
        while let found = remainder.range(of: "password") {
            var after = remainder[found.upperBound...].drop { $0 == " " }
            guard after.first == "=" else { remainder = after; continue }
            after = after.dropFirst().drop { $0 == " " }
            let quoted = after.first == "'"
            if quoted { after = after.dropFirst() }
            let value = after.prefix { quoted ? $0 != "'" : !($0 == " " || $0 == "&") }
            candidates.append(String(value))
            remainder = after[value.endIndex...]
        }
        return candidates.flatMap { [$0, $0.removingPercentEncoding].compactMap { $0 } }.filter { !$0.isEmpty }
    }

    private static func describeServers(hosts: String, port: String) -> String {
        let hostList = hosts.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let portList = port.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return hostList.enumerated().map { index, host in
            let hostPort = portList.count == hostList.count ? portList[index] : portList.first ?? "5432"
            let shownHost = host.isEmpty ? defaultSocketFolder : host
            return shownHost.hasPrefix("/") ? "\(shownHost)/.s.PGSQL.\(hostPort)" : "\(shownHost):\(hostPort)"
        }.joined(separator: ",")
    }

    /// Where libpq looks for the server's socket when no host is given (Debian's build).
    private static let defaultSocketFolder = "/var/run/postgresql"

    private static var currentUserName: String {
        ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.userName
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var text = self
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }
}
