import CLibPQ

/// Opens a libpq connection without blocking in libpq: `PQconnectStartParams`, then
/// `PQconnectPoll` driven by ``PostgreSQLSocketWait``, so that the attempt has a deadline, can be
/// cut short by a ``PostgreSQLWakeUp`` (a listener being closed), and tells an unreachable server
/// from a refused login by how far the handshake went — not by parsing libpq's messages, which
/// are translated.
enum PostgreSQLConnector {
    /// How long a connection attempt may take when the string sets no `connect_timeout`.
    static let defaultTimeout: Duration = .seconds(30)

    /// A connected handle, or the typed error: ``ObjectGraphError/serverUnreachable(server:database:message:)``
    /// when no server answered, ``ObjectGraphError/serverBusy(server:database:message:)`` when
    /// one answered but takes no connection now,
    /// ``ObjectGraphError/loginRefused(server:database:user:message:)`` when one answered and
    /// refused. `wakeUp` ends the attempt early as unreachable.
    static func connect(
        _ connectionString: PostgreSQLConnectionString, wakeUp: PostgreSQLWakeUp? = nil
    ) throws(ObjectGraphError) -> OpaquePointer {
        let handle = connectionString.withConnectionParameters { keywords, values in
            PQconnectStartParams(keywords, values, 1)
        }
        guard let handle else {
            throw .serverUnreachable(server: connectionString.server, database: connectionString.database, message: "libpq could not allocate a connection")
        }
        // libpq prints the server's notices (and the message of a session ended while idle) to
        // standard error unless told otherwise: a library keeps quiet; errors reach the caller.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        // While connecting, the server's refusal carries its SQLSTATE in the message (the only
        // place libpq gives it before a session exists): a full server is told from a refused
        // login by its code, not by its translated text.
        PQsetErrorVerbosity(handle, PQERRORS_VERBOSE)
        let deadline = ContinuousClock.now + (timeout(of: handle) ?? defaultTimeout)
        var answered = false
        var polling = PQstatus(handle) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING
        while polling != PGRES_POLLING_OK {
            if polling == PGRES_POLLING_FAILED {
                throw failure(of: handle, connectionString, answered: answered)
            }
            let direction: PostgreSQLSocketWait.Direction = polling == PGRES_POLLING_READING ? .read : .write
            let socket = PQsocket(handle)
            // Between two hosts libpq may have no socket yet: poll it again at once.
            let outcome = socket < 0 ? .ready : PostgreSQLSocketWait.wait(for: socket, direction, wakeUp: wakeUp, until: deadline)
            switch outcome {
            case .ready:
                break
            case .woken:
                PQfinish(handle)
                throw .serverUnreachable(server: connectionString.server, database: connectionString.database, message: "the connection attempt was cancelled")
            case .timedOut:
                PQfinish(handle)
                throw .serverUnreachable(server: connectionString.server, database: connectionString.database, message: "no answer within the connect timeout")
            }
            polling = PQconnectPoll(handle)
            // From here on a server is talking to us: a failure is its refusal. Trying the next
            // of several hosts starts over from CONNECTION_STARTED.
            let status = PQstatus(handle)
            if status == CONNECTION_AWAITING_RESPONSE || status == CONNECTION_AUTH_OK {
                answered = true
            } else if status == CONNECTION_STARTED || status == CONNECTION_MADE {
                answered = false
            }
        }
        PQsetErrorVerbosity(handle, PQERRORS_DEFAULT)
        return handle
    }

    /// The string's `connect_timeout`, if it sets a positive one (libpq's own minimum is 2 s).
    private static func timeout(of handle: OpaquePointer) -> Duration? {
        guard let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        guard let seconds = PostgreSQLConnectionString.values(of: options)["connect_timeout"].flatMap({ Int($0) }), seconds > 0 else { return nil }
        return .seconds(max(seconds, 2))
    }

    private static func failure(
        of handle: OpaquePointer, _ connectionString: PostgreSQLConnectionString, answered: Bool
    ) -> ObjectGraphError {
        let usedPassword = PQpass(handle).map { String(cString: $0) }
        let (code, text) = serverCode(in: String(cString: PQerrorMessage(handle)))
        let message = connectionString.scrub(text, also: usedPassword).trimmingTrailingNewlines
        PQfinish(handle)
        if answered, let code, busyCodes.contains(code) {
            return .serverBusy(server: connectionString.server, database: connectionString.database, message: message)
        }
        if answered {
            return .loginRefused(server: connectionString.server, database: connectionString.database,
                                 user: connectionString.user, message: message)
        }
        return .serverUnreachable(server: connectionString.server, database: connectionString.database, message: message)
    }

    /// The SQLSTATEs of a server that answered but takes no connection now: too many
    /// connections, and a server starting up, shutting down or in recovery.
    private static let busyCodes: Set<String> = ["53300", "57P03"]

    /// The last SQLSTATE a verbose libpq message gives ("FATAL:  53300: sorry, …"), and the
    /// message as the default verbosity writes it: without the codes and the `LOCATION:` lines.
    static func serverCode(in verbose: String) -> (code: String?, message: String) {
        var code: String?
        var lines: [Substring] = []
        for line in verbose.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("LOCATION:") { continue }
            lines.append(withoutCode(line, found: &code))
        }
        return (code, lines.joined(separator: "\n"))
    }

    /// `line` without the five-character SQLSTATE that follows a severity ("FATAL:  "), which is
    /// stored in `found`.
    private static func withoutCode(_ line: Substring, found: inout String?) -> Substring {
        for severity in ["FATAL:  ", "ERROR:  ", "PANIC:  "] {
            guard let range = line.range(of: severity) else { continue }
            let rest = line[range.upperBound...]
            let candidate = rest.prefix(5)
            guard candidate.count == 5, candidate.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }),
                  rest.dropFirst(5).hasPrefix(": ") else { continue }
            found = String(candidate)
            return line[..<range.upperBound] + rest.dropFirst(7)
        }
        return line
    }
}
