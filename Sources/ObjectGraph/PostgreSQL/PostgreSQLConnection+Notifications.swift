import CLibPQ

/// A `NOTIFY` received on a connection that listens to its channel.
struct PostgreSQLNotification: Equatable, Sendable {
    let channel: String
    let payload: String
    /// The server process of the session that sent it.
    let senderPID: Int32
}

extension PostgreSQLConnection {
    /// The descriptor to wait on for the server's messages (`-1` when not connected). It can
    /// change when the connection is reopened: ask again after ``reconnect(wakeUp:)``.
    var socket: Int32 { handle.map(PQsocket) ?? -1 }

    /// Subscribes the session to `channel` (a name, quoted here).
    func listen(to channel: String) throws(ObjectGraphError) {
        try executeOnce("LISTEN \(SQLDialect.postgreSQL.quotedName(channel))")
    }

    /// Reads whatever the server has sent, without blocking, and returns the notifications
    /// among it, oldest first.
    ///
    /// - Throws: ``ObjectGraphError/connectionLost(server:database:message:)`` when the server
    ///   closed the connection; it is dropped and must be reopened.
    func receiveNotifications() throws(ObjectGraphError) -> [PostgreSQLNotification] {
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            throw .connectionLost(server: origin.server, database: origin.database, message: "the connection is closed")
        }
        if PQconsumeInput(handle) == 0 || PQstatus(handle) == CONNECTION_BAD {
            let message = connectionString.scrub(String(cString: PQerrorMessage(handle))).trimmingTrailingNewlines
            dropConnection()
            throw .connectionLost(server: origin.server, database: origin.database, message: message)
        }
        var notifications: [PostgreSQLNotification] = []
        while let notification = PQnotifies(handle) {
            notifications.append(PostgreSQLNotification(
                channel: String(cString: notification.pointee.relname),
                payload: String(cString: notification.pointee.extra),
                senderPID: notification.pointee.be_pid))
            PQfreemem(notification)
        }
        return notifications
    }
}
