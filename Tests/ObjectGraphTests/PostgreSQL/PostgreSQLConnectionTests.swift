import Foundation
@testable import ObjectGraph
import Testing

// Skipped without a server: run `.ci/postgres run swift test` (see PostgreSQLTestServer).
@Suite("PostgreSQL connections", .enabled(if: PostgreSQLTestServer.isEnabled, "\(PostgreSQLTestServer.skipMessage)"))
struct PostgreSQLConnectionTests {
    @Test("every value type survives the round trip through binary parameters and results exactly")
    func valuesRoundTrip() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let connection = try PostgreSQLConnection(database.connectionString)
            let values: [PostgreSQLValue] = [
                .null, .bool(true), .bool(false), .int64(0), .int64(.min), .int64(.max), .int64(-42),
                .double(0.1), .double(-0.0), .double(.infinity), .double(-.infinity), .double(.greatestFiniteMagnitude),
                .double(.leastNonzeroMagnitude), .double(1.0 / 3.0),
                .text(""), .text("it's \"quoted\" \\ and é, 🎉, \u{301}'"), .bytes([]), .bytes([0, 1, 255, 39, 92]),
                .uuid(UUID()), .timestamp(Date(timeIntervalSince1970: 1_700_000_000.123456)),
                .timestamp(Date(timeIntervalSince1970: -1_000_000.5)),
                .numeric(Decimal(string: "0")!), .numeric(Decimal(string: "123.4500")!), .numeric(Decimal(string: "-0.00000005")!),
                .numeric(Decimal(string: "12345678901234567890.123456789012345678")!), .numeric(Decimal(string: "-10000")!),
                .numeric(Decimal(string: "0.1")!), .numeric(Decimal(string: "99990000")!),
                .jsonb("{\"a\": [1, 2.5, \"x\"]}"),
            ]
            for value in values {
                let result = try connection.execute("SELECT $1", [value])
                let read = try result.value(row: 0, column: 0)
                switch (value, read) {
                case let (.double(sent), .double(received)):
                    #expect(sent.bitPattern == received.bitPattern, "\(sent) came back as \(received)")
                case let (.numeric(sent), .numeric(received)):
                    #expect(sent == received, "\(sent) came back as \(received)")
                case (.null, .null):
                    break  // a NULL of unknown type comes back as text NULL
                default:
                    #expect(read == value, "\(value) came back as \(read)")
                }
            }
            let nan = try connection.execute("SELECT $1", [.double(.nan)]).value(row: 0, column: 0)
            guard case .double(let read) = nan else { Issue.record("NaN came back as \(nan)"); return }
            #expect(read.isNaN)
        }
    }

    @Test("integers of every width, reals and NaN numerics decode from the server's own columns")
    func serverTypesDecode() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let connection = try PostgreSQLConnection(database.connectionString)
            let result = try connection.execute(
                "SELECT 7::int2, -70000::int4, 1.5::float4, 'n'::name, 'v'::varchar, '{\"k\":1}'::json, 'NaN'::numeric, 5::oid")
            #expect(try result.value(row: 0, column: 0) == .int64(7))
            #expect(try result.value(row: 0, column: 1) == .int64(-70000))
            #expect(try result.value(row: 0, column: 2) == .double(1.5))
            #expect(try result.value(row: 0, column: 3) == .text("n"))
            #expect(try result.value(row: 0, column: 4) == .text("v"))
            #expect(try result.value(row: 0, column: 5) == .text("{\"k\":1}"))
            guard case .numeric(let nan) = try result.value(row: 0, column: 6) else { Issue.record("NaN numeric"); return }
            #expect(nan.isNaN)
            #expect(try result.int64(row: 0, column: 7) == 5)
            // A type ObjectGraph does not read is a typed error that names the column.
            let point = try connection.execute("SELECT point(1, 2) AS place")
            #expect {
                try point.value(row: 0, column: 0)
            } throws: { error in
                guard case let .postgreSQL(_, _, code, message) = error as? ObjectGraphError else { return false }
                return code == "42804" && message.contains("place")
            }
        }
    }

    @Test("every libpq parameter passes through: application_name, options, and a bad sslmode is libpq's error")
    func parametersPassThrough() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let text = try PostgreSQLTestServer.connectionText(replacing: [
                "dbname": database.name, "application_name": "og-passthrough", "options": "-c search_path=elsewhere,public",
                "sslmode": "prefer", "connect_timeout": "10", "keepalives": "1",
            ])
            let connection = try PostgreSQLConnection(PostgreSQLConnectionString(text))
            #expect(try connection.execute("SELECT current_setting('application_name')").string(row: 0, column: 0) == "og-passthrough")
            #expect(try connection.execute("SELECT current_setting('search_path')").string(row: 0, column: 0)?.hasPrefix("elsewhere") == true)
            // Without an application name, the server sees ObjectGraph's fallback.
            let plain = try PostgreSQLConnection(database.connectionString)
            #expect(try plain.execute("SELECT current_setting('application_name')").string(row: 0, column: 0) == "ObjectGraph")

            let badMode = try PostgreSQLTestServer.connectionText(replacing: ["dbname": database.name, "sslmode": "sometimes"])
            #expect {
                _ = try PostgreSQLConnection(PostgreSQLConnectionString(badMode))
            } throws: { error in
                "\(error)".contains("sslmode")
            }
            #expect(throws: ObjectGraphError.self) { try PostgreSQLConnectionString("host=x nosuchkeyword=1") }
        }
    }

    @Test("no server at the address is serverUnreachable, naming the server and the database")
    func unreachableServer() throws {
        let emptyFolder = FileManager.default.temporaryDirectory.appendingPathComponent("og-no-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: emptyFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: emptyFolder) }
        let socketString = try PostgreSQLConnectionString("host=\(emptyFolder.path) dbname=orders user=app")
        #expect {
            _ = try PostgreSQLConnection(socketString)
        } throws: { error in
            guard case let .serverUnreachable(server, database, _) = error as? ObjectGraphError else { return false }
            return server == "\(emptyFolder.path)/.s.PGSQL.5432" && database == "orders"
                && "\(error)".contains(emptyFolder.path) && "\(error)".contains("orders")
        }
        let tcpString = try PostgreSQLConnectionString("postgresql://app:hunter2secret@127.0.0.1:1/orders?connect_timeout=5")
        #expect {
            _ = try PostgreSQLConnection(tcpString)
        } throws: { error in
            guard case let .serverUnreachable(server, database, _) = error as? ObjectGraphError else { return false }
            return server == "127.0.0.1:1" && database == "orders" && !"\(error)".contains("hunter2secret")
        }
    }

    @Test("a wrong password, an unknown role or database is loginRefused, and the password shows nowhere")
    func refusedLogin() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let role = "og_login_\(UUID().uuidString.prefix(6).lowercased())"
            try database.admin.executeOnce("CREATE ROLE \(role) LOGIN PASSWORD 'right-password-123'")
            defer { _ = try? database.admin.executeOnce("DROP ROLE \(role)") }
            let secret = "wr0ng-s3cret-value"
            let wrong = try PostgreSQLTestServer.connectionString(replacing: ["dbname": database.name, "user": role, "password": secret])
            for shown in [wrong.description, String(reflecting: wrong), "\(wrong)", String(describing: Mirror(reflecting: wrong).children.map(\.value))] {
                #expect(!shown.contains(secret), "\(shown)")
            }
            var dumped = ""
            dump(wrong, to: &dumped)
            #expect(!dumped.contains(secret), "\(dumped)")
            #expect {
                _ = try PostgreSQLConnection(wrong)
            } throws: { error in
                guard case let .loginRefused(_, name, user, message) = error as? ObjectGraphError else { return false }
                return name == database.name && user == role && !message.contains(secret) && !"\(error)".contains(secret)
                    && !String(reflecting: error).contains(secret)
            }
            let right = try PostgreSQLTestServer.connectionString(replacing: ["dbname": database.name, "user": role, "password": "right-password-123"])
            #expect(try PostgreSQLConnection(right).execute("SELECT current_user").string(row: 0, column: 0) == role)

            let unknownDatabase = try PostgreSQLTestServer.connectionString(replacing: ["dbname": "og_no_such_database"])
            #expect {
                _ = try PostgreSQLConnection(unknownDatabase)
            } throws: { error in
                guard case let .loginRefused(_, name, _, _) = error as? ObjectGraphError else { return false }
                return name == "og_no_such_database"
            }
        }
    }

    @Test("a server that takes no more connections (SQLSTATE 53300) is serverBusy, not a refused login, and its message keeps the server's words without the code")
    func busyServer() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let role = "og_busy_\(UUID().uuidString.prefix(6).lowercased())"
            try database.admin.executeOnce("CREATE ROLE \(role) LOGIN PASSWORD 'busy-password-123' CONNECTION LIMIT 0")
            defer { _ = try? database.admin.executeOnce("DROP ROLE \(role)") }
            let full = try PostgreSQLTestServer.connectionString(replacing: ["dbname": database.name, "user": role, "password": "busy-password-123"])
            #expect {
                _ = try PostgreSQLConnection(full)
            } throws: { error in
                guard case let .serverBusy(_, name, message) = error as? ObjectGraphError else { return false }
                return name == database.name && message.contains("too many connections") && !message.contains("53300")
                    && !message.contains("LOCATION") && !"\(error)".contains("busy-password-123")
            }
            // Once the role may connect again, the same string works.
            try database.admin.executeOnce("ALTER ROLE \(role) CONNECTION LIMIT 1")
            #expect(try PostgreSQLConnection(full).execute("SELECT current_user").string(row: 0, column: 0) == role)
        }
    }

    @Test("a verbose libpq message gives its SQLSTATE, and the message without the code and LOCATION lines")
    func serverCodeInMessage() {
        let verbose = "connection to server on socket \"/tmp/x/.s.PGSQL.5432\" failed: FATAL:  53300: sorry, too many clients already\nLOCATION:  InitProcess, proc.c:360\n"
        let (code, message) = PostgreSQLConnector.serverCode(in: verbose)
        #expect(code == "53300")
        #expect(message == "connection to server on socket \"/tmp/x/.s.PGSQL.5432\" failed: FATAL:  sorry, too many clients already\n")
        let plain = PostgreSQLConnector.serverCode(in: "could not connect to server: No such file or directory")
        #expect(plain.code == nil)
        #expect(plain.message == "could not connect to server: No such file or directory")
    }

    @Test("a password in a connection string libpq cannot read, or in a URI, never reaches the error")
    func passwordScrubbedFromParseErrors() throws {
        let strings = [
            "postgresql://app:pa%zzss-w0rd@db.example.com/orders",
            "host=db password='pa ss-w0rd' bogus=1",
            "host=db password=pa-ss-w0rd bogus",
        ]
        for text in strings {
            #expect {
                _ = try PostgreSQLConnectionString(text)
            } throws: { error in
                let shown = "\(error) \(String(reflecting: error))"
                return !shown.contains("w0rd")
            }
        }
        let uri = try PostgreSQLConnectionString("postgresql://app:topsecret-42@db.example.com:6432/orders?sslmode=verify-full")
        #expect(uri.description == "postgresql://app@db.example.com:6432/orders")
        #expect(uri.scrub("authentication with topsecret-42 failed") == "authentication with ••• failed")
    }

    @Test("the SQL log shows statements with their values written in, and never the password")
    func sqlLogHasNoPassword() throws {
        let role = "og_log_\(UUID().uuidString.prefix(6).lowercased())"
        let password = "log-secret-9876"
        let admin = try PostgreSQLConnection(PostgreSQLTestServer.adminConnectionString())
        try admin.executeOnce("CREATE ROLE \(role) LOGIN PASSWORD '\(password)'")
        defer { _ = try? admin.executeOnce("DROP ROLE \(role)") }  // after its database is gone
        try PostgreSQLTestServer.withDatabase { database in
            try database.admin.executeOnce("ALTER DATABASE \(database.name) OWNER TO \(role)")
            let entries = Shared<[SQLLogEntry]>([])
            let log = SQLLog(environment: [:])
            log.setHandler { entry in entries.update { $0.append(entry) } }
            let string = try PostgreSQLTestServer.connectionString(replacing: ["dbname": database.name, "user": role, "password": password])
            let connection = try PostgreSQLConnection(string, log: log)
            try connection.executeOnce("CREATE TABLE logged (name text)")
            try connection.execute("INSERT INTO logged (name) VALUES ($1)", [.text("it's")])
            #expect(throws: ObjectGraphError.self) { try connection.execute("SELECT nothing FROM logged") }
            log.deliverPending()
            let logged = entries.get()
            #expect(logged.contains { $0.expandedSQL == "INSERT INTO logged (name) VALUES ('it''s')" })
            #expect(logged.count >= 3)
            #expect(!logged.contains { "\($0) \($0.sql)".contains(password) })
        }
    }

    @Test("a failing statement is a typed error with its SQLSTATE; the connection stays usable")
    func statementErrors() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let connection = try PostgreSQLConnection(database.connectionString)
            #expect {
                try connection.execute("SELEC 1")
            } throws: { error in
                guard case let .postgreSQL(server, name, code, message) = error as? ObjectGraphError else { return false }
                return code == "42601" && name == database.name && server.hasSuffix(".s.PGSQL.5432") && message.contains("SELEC 1")
            }
            try connection.executeOnce("CREATE TABLE unique_names (name text PRIMARY KEY)")
            try connection.execute("INSERT INTO unique_names VALUES ($1)", [.text("a")])
            #expect {
                try connection.execute("INSERT INTO unique_names VALUES ($1)", [.text("a")])
            } throws: { error in
                guard case let .postgreSQL(_, _, code, _) = error as? ObjectGraphError else { return false }
                return code == "23505"
            }
            #expect(try connection.execute("SELECT count(*) FROM unique_names").int64(row: 0, column: 0) == 1)
        }
    }

    @Test("a statement prepared before its table changed type is prepared again outside a transaction, and fails typed inside one")
    func outdatedPreparedStatement() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let connection = try PostgreSQLConnection(database.connectionString)
            try connection.executeOnce("CREATE TABLE changing (a bigint)")
            try connection.execute("INSERT INTO changing VALUES ($1)", [.int64(7)])
            #expect(try connection.execute("SELECT a FROM changing").value(row: 0, column: 0) == .int64(7))
            try connection.executeOnce("ALTER TABLE changing ALTER COLUMN a TYPE text")
            #expect(try connection.execute("SELECT a FROM changing").value(row: 0, column: 0) == .text("7"))
            try connection.executeOnce("ALTER TABLE changing ALTER COLUMN a TYPE bigint USING a::bigint")
            #expect {
                try connection.transaction { () throws(ObjectGraphError) in
                    _ = try connection.execute("SELECT a FROM changing")
                }
            } throws: { error in
                guard case let .postgreSQL(_, _, code, _) = error as? ObjectGraphError else { return false }
                return code == "0A000"
            }
            #expect(try connection.execute("SELECT a FROM changing").value(row: 0, column: 0) == .int64(7))
            try connection.discardPreparedStatements()
            #expect(try connection.execute("SELECT a FROM changing").value(row: 0, column: 0) == .int64(7))
        }
    }

    @Test("a transaction commits what its body wrote, rolls back when it throws, and nests as a savepoint")
    func transactions() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let connection = try PostgreSQLConnection(database.connectionString)
            try connection.executeOnce("CREATE TABLE items (name text PRIMARY KEY)")
            try connection.transaction { () throws(ObjectGraphError) in
                try connection.execute("INSERT INTO items VALUES ($1)", [.text("kept")])
                _ = try? connection.transaction { () throws(ObjectGraphError) in
                    try connection.execute("INSERT INTO items VALUES ($1)", [.text("inner, undone")])
                    throw ObjectGraphError.invalidMigrationPlan("undo the savepoint")
                }
            }
            #expect(throws: ObjectGraphError.self) {
                try connection.transaction { () throws(ObjectGraphError) in
                    try connection.execute("INSERT INTO items VALUES ($1)", [.text("rolled back")])
                    try connection.execute("INSERT INTO items VALUES ($1)", [.text("kept")])  // duplicate key
                }
            }
            // A body that swallows a failed statement: the server answers COMMIT with ROLLBACK.
            #expect {
                try connection.transaction { () throws(ObjectGraphError) in
                    try connection.execute("INSERT INTO items VALUES ($1)", [.text("swallowed")])
                    _ = try? connection.execute("INSERT INTO items VALUES ($1)", [.text("kept")])
                }
            } throws: { error in
                guard case let .postgreSQL(_, _, code, _) = error as? ObjectGraphError else { return false }
                return code == "25P02"
            }
            #expect(!connection.isInTransaction)
            let names = try connection.execute("SELECT name FROM items ORDER BY name")
            #expect(try (0..<names.rowCount).map { try names.string(row: $0, column: 0) } == ["kept"])
        }
    }

    @Test("killing the writer's session mid-transaction: a typed error, nothing half-written, and a retry works")
    func backendKilledMidTransaction() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let pool = PostgreSQLConnectionPool(database.connectionString)
            try pool.write { connection throws(ObjectGraphError) in
                try connection.executeOnce("CREATE TABLE items (name text PRIMARY KEY)")
            }
            var thrown: ObjectGraphError?
            do throws(ObjectGraphError) {
                try pool.write { connection throws(ObjectGraphError) in
                    try connection.execute("INSERT INTO items VALUES ($1)", [.text("first")])
                    try? database.terminate(backend: connection.backendPID)
                    try connection.execute("INSERT INTO items VALUES ($1)", [.text("second")])
                }
            } catch {
                thrown = error
            }
            guard case let .connectionLost(server, name, _)? = thrown else {
                Issue.record("expected connectionLost, got \(String(describing: thrown))")
                return
            }
            #expect(name == database.name && server.hasSuffix(".s.PGSQL.5432"))
            #expect(try pool.read { connection throws(ObjectGraphError) in
                try connection.execute("SELECT count(*) FROM items").int64(row: 0, column: 0)
            } == 0)
            try pool.write { connection throws(ObjectGraphError) in
                try connection.execute("INSERT INTO items VALUES ($1)", [.text("first")])
                try connection.execute("INSERT INTO items VALUES ($1)", [.text("second")])
            }
            #expect(try pool.read { connection throws(ObjectGraphError) in
                try connection.execute("SELECT count(*) FROM items").int64(row: 0, column: 0)
            } == 2)
        }
    }

    @Test("a pooled connection whose session ended while idle is replaced without an error, for reads and writes")
    func idleConnectionsReconnect() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let pool = PostgreSQLConnectionPool(database.connectionString, maximumReaders: 1)
            let writerPID = try pool.write { connection throws(ObjectGraphError) in
                try connection.executeOnce("CREATE TABLE items (name text)")
                return connection.backendPID
            }
            let readerPID = try pool.read { connection throws(ObjectGraphError) in connection.backendPID }
            try database.terminate(backend: writerPID)
            try database.terminate(backend: readerPID)
            let newWriterPID = try pool.write { connection throws(ObjectGraphError) in
                try connection.execute("INSERT INTO items VALUES ($1)", [.text("after the restart")])
                return connection.backendPID
            }
            let (count, newReaderPID) = try pool.read { connection throws(ObjectGraphError) in
                (try connection.execute("SELECT count(*) FROM items").int64(row: 0, column: 0), connection.backendPID)
            }
            #expect(count == 1)
            #expect(newWriterPID != writerPID && newReaderPID != readerPID)
        }
    }

    @Test("a closed pool refuses further work with storeClosed")
    func closedPool() throws {
        try PostgreSQLTestServer.withDatabase { database in
            let pool = PostgreSQLConnectionPool(database.connectionString)
            _ = try pool.read { connection throws(ObjectGraphError) in try connection.execute("SELECT 1") }
            pool.close()
            #expect {
                try pool.read { connection throws(ObjectGraphError) in try connection.execute("SELECT 1") }
            } throws: { error in
                guard case .storeClosed = error as? ObjectGraphError else { return false }
                return true
            }
        }
    }
}
