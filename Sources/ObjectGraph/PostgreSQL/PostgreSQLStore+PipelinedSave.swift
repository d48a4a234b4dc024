import Foundation

/// A small save on PostgreSQL in one round trip. A save that only updates attributes is sent as
/// one pipeline: `BEGIN`, the store's lock, one ``PostgreSQLCheckedUpdate`` per object, the
/// history entry with its `NOTIFY`, and `COMMIT`. The general path (SQLStore+Save.swift) reads
/// each row first and waits for each statement: four round trips for one object.
///
/// The optimistic check moves into the `UPDATE`, which writes the row only if its version is
/// still the one the context read, and otherwise fails. A statement that fails in a pipeline
/// makes the server skip the rest of it, `COMMIT` included, so the transaction is rolled back
/// with nothing written: a conflict, a row deleted elsewhere, a lost connection or any other
/// error leaves the store as it was. After a conflict the save is made again the general way,
/// which reads the rows and resolves by the merge policy exactly as before (or throws the
/// conflict): a conflict costs one pipeline and a rollback more, a save without one three
/// round trips less.
extension PostgreSQLStore {
    /// The most updates a save sends in one pipeline: its statements stay prepared together
    /// (well under ``PostgreSQLConnection/preparedStatementCacheSize``), and their answers
    /// small while the client is still sending. Larger saves take the general path.
    static let pipelinedUpdateLimit = 100

    /// Saves `changes` in one pipeline if they are attribute updates only (no inserts, deletes,
    /// relationships or values under a uniqueness constraint). `nil` if they are not, or if a
    /// row was not at the version its context read: then nothing was written, and the caller
    /// saves them the general way.
    func savedInOnePipeline(_ changes: StoreChanges) throws(ObjectGraphError) -> StoreSaveResult? {
        guard pinned == nil, changes.inserted.isEmpty, changes.deleted.isEmpty,
              (1...Self.pipelinedUpdateLimit).contains(changes.updated.count) else { return nil }
        var updates: [PostgreSQLCheckedUpdate] = []
        updates.reserveCapacity(changes.updated.count)
        for update in changes.updated {
            guard let checked = PostgreSQLCheckedUpdate(update, mapping: try mapping(for: update.id.entity)) else { return nil }
            updates.append(checked)
        }
        defer { sqlLog.deliverPending() }
        let pending = recordsHistory ? PendingHistory(record: HistoryRecord(changes, detached: [:]), author: changes.author) : nil
        do throws(ObjectGraphError) {
            return try writerPool.write { connection throws(ObjectGraphError) -> StoreSaveResult in
                var calls = [try connection.preparedCall(PostgreSQLStoreOpening.lockSQL, [])]
                for update in updates {
                    calls.append(connection.preparedCall(try connection.prepareInferringTypes(update.sql), values: update.values))
                }
                let history = pending.map(historyStatement)
                if let history { calls.append(try connection.preparedCall(history.sql, history.parameters)) }
                let results = try connection.executeAndCommit(calls)
                var result = StoreSaveResult()
                for update in updates { result.versions[update.id] = update.version }
                if history != nil, let last = results.last {
                    result.historyToken = try PostgreSQLHistoryClock.token(from: last, on: connection)
                }
                return result
            }
        } catch .postgreSQL(_, _, PostgreSQLCheckedUpdate.versionMoved, _) {
            return nil
        }
    }
}
