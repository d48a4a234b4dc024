import Foundation

/// The history tables of a SQLite file come with its first write of the store's own, so that
/// opening a file never writes it (see SQLStore+History.swift for the rest of the history).
extension SQLiteStore {
    /// Creates the history tables in a file that lacks them (a new file, or one written before
    /// the store kept history), with a new store identifier, in the write transaction open on
    /// `connection`, the lock held. Every write of the store's own calls it first.
    func prepareHistoryTables(on connection: SQLiteConnection) throws(ObjectGraphError) {
        guard !hasHistoryTables, !creatingHistoryTables else { return }
        for statement in historySQL.createTables + historySQL.foreignWriteTriggers(on: watchedTables) { try connection.execute(statement) }
        let insert = try connection.prepare(historySQL.insertState)
        defer { insert.reset() }
        try insert.bind(UUID().uuidString, at: 1)
        try insert.run()
        creatingHistoryTables = true
    }

    func withHistoryTransaction<Result>(
        _ body: (SQLiteConnection) throws(ObjectGraphError) -> (Result, PendingHistory?)
    ) throws(ObjectGraphError) -> (Result, Int64?) {
        try withWriteTransaction { connection throws(ObjectGraphError) -> (Result, Int64?) in
            let (result, pending) = try body(connection)
            guard let pending else { return (result, nil) }
            return (result, try writeHistory(pending.record, author: pending.author, on: connection))
        }
    }
}
