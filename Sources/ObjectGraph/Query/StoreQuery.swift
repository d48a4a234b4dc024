/// A query for a store to run: the rows of some entities that meet a translated condition, in
/// a translated order, within a window.
struct StoreQuery: Sendable {
    /// The concrete entities whose rows count; all of one hierarchy.
    var entities: [EntityDescription]
    /// Narrows the rows; `nil` keeps them all.
    var condition: QueryCondition?
    /// The order, before the tie-break by object ID that always ends it; `nil` when the order
    /// does not matter (a count, or rows to be sorted in memory).
    var sortKeys: [QuerySortKey]?
    /// At most this many rows (after the offset); no limit when `nil`.
    var limit: Int?
    /// How many leading rows to skip.
    var offset = 0
    /// Only the rows after this one in the order of ``sortKeys`` (which must be set).
    var after: QueryKeyset?
    /// The parts of the fetch's predicate evaluated in memory on the rows, with the reasons,
    /// for the SQL log; set only while the log is on.
    var evaluatedInMemory: [String] = []

    init(entities: [EntityDescription], condition: QueryCondition? = nil, sortKeys: [QuerySortKey]? = nil, limit: Int? = nil, offset: Int = 0) {
        self.entities = entities
        self.condition = condition
        self.sortKeys = sortKeys
        self.limit = limit
        self.offset = offset
    }
}

/// A store that runs ``StoreQuery``s itself (in SQL) instead of handing every row over.
protocol StoreQueryEngine: AnyObject, Sendable {
    /// The rows `query` selects, in its order.
    func rows(matching query: StoreQuery) throws(ObjectGraphError) -> [StoredRow]
    /// The IDs of the rows `query` selects, in its order; nothing else is read.
    func identifiers(matching query: StoreQuery) throws(ObjectGraphError) -> [ObjectID]
    /// How many rows `query` selects (its order and window ignored).
    func count(matching query: StoreQuery) throws(ObjectGraphError) -> Int
    /// The rows with these IDs that still exist, in no particular order.
    func rows(for ids: [ObjectID]) throws(ObjectGraphError) -> [StoredRow]
    /// Some row of exactly `entity`, if there is one.
    func sampleRow(of entity: EntityDescription) throws(ObjectGraphError) -> StoredRow?
    /// The statement `query` runs as, and the database's plan for it.
    func explain(_ query: StoreQuery) throws(ObjectGraphError) -> (sql: String, plan: [String])
    /// Whether the store reports its statements (so that a fetch says what it evaluates in
    /// memory beside them).
    var isLogging: Bool { get }
    /// The SQL the store runs: what a translation can leave to it.
    var dialect: SQLDialect { get }
    /// The statements of the fetch shapes the store has run (see ``FetchShape``).
    var fetchStatements: FetchStatementCache { get }
    /// The statement ``rows(matching:)`` runs for `query`, when it is one statement.
    func rowsStatement(_ query: StoreQuery) -> SQLStatementText?
    /// The rows of `entity` that `statement` (made by ``rowsStatement(_:)``) selects, in its order.
    func rows(_ statement: SQLStatementText, of entity: EntityDescription) throws(ObjectGraphError) -> [StoredRow]
}
