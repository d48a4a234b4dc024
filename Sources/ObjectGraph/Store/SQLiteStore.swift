import Foundation

/// Placeholder until the SQLite store lands: refuses to open.
final class SQLiteStore: PersistentStore, Sendable {
    let path: String

    init(url: URL, model: ObjectModel) throws {
        path = url.path
        throw ObjectGraphError.storeUnavailable(path: path, message: "the SQLite store is not built yet")
    }

    func allocatePrimaryKeys(root: EntityDescription, count: Int) throws(ObjectGraphError) -> ClosedRange<Int64> { throw .storeBusy(path: path) }
    func rows(of entities: [EntityDescription]) throws(ObjectGraphError) -> [StoredRow] { [] }
    func row(for id: ObjectID) throws(ObjectGraphError) -> StoredRow? { nil }
    func targets(of id: ObjectID, relationship: PropertyDescription) throws(ObjectGraphError) -> Set<ObjectID> { [] }
    func save(_ changes: StoreChanges, policy: MergePolicy) throws(ObjectGraphError) -> StoreSaveResult { StoreSaveResult() }
}
