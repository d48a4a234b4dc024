/// How a fetch request runs: which part runs in SQL and which in memory.
///
/// ```swift
/// let explanation = try view.explain(FetchRequest<Profile>(predicate: #Predicate { $0.username == "ada" }))
/// explanation.predicateInMemory   // [] — all of it runs in SQL
/// explanation.queryPlan           // ["SEARCH r USING INDEX Profile(username) (username=?)"]
/// ```
public struct FetchExplanation: Sendable, CustomStringConvertible {
    /// The statement that selects the rows, with numbered placeholders; `nil` for a store that
    /// runs no SQL (the in-memory store).
    public let sql: String?
    /// SQLite's `EXPLAIN QUERY PLAN` for ``sql``, one line per step: `SEARCH … USING INDEX`
    /// when an index serves the query, `SCAN` when every row is read.
    public let queryPlan: [String]
    /// Whether some of the predicate narrows the rows in SQL.
    public let predicateInSQL: Bool
    /// The parts of the predicate evaluated in memory, on the rows SQL returned, each with the
    /// reason; empty when SQL answers the whole predicate.
    public let predicateInMemory: [String]
    /// Whether SQL sorts the rows (otherwise they are sorted in memory).
    public let sortInSQL: Bool
    /// Whether SQL applies the limit and offset (with room for objects evaluated in memory).
    public let windowInSQL: Bool
    /// How many objects with unsaved changes (or whose related objects have some) are
    /// evaluated in memory instead of by SQL.
    public let objectsEvaluatedInMemory: Int

    /// A few lines saying what runs where.
    public var description: String {
        var lines: [String] = []
        lines.append("SQL: \(sql ?? "none (every object is evaluated in memory)")")
        for step in queryPlan { lines.append("  plan: \(step)") }
        if predicateInMemory.isEmpty {
            lines.append("predicate: \(predicateInSQL ? "in SQL" : "none")")
        } else {
            lines.append("predicate: \(predicateInSQL ? "partly in SQL; " : "")in memory:")
            for part in predicateInMemory { lines.append("  \(part)") }
        }
        lines.append("sort: \(sortInSQL ? "in SQL" : "in memory"); limit and offset: \(windowInSQL ? "in SQL" : "in memory")")
        if objectsEvaluatedInMemory > 0 { lines.append("objects with unsaved changes evaluated in memory: \(objectsEvaluatedInMemory)") }
        return lines.joined(separator: "\n")
    }
}
