extension SQLiteStore {
    /// How many problems a failed check names at most.
    static let listedIntegrityProblems = 10

    /// Reads the whole file and checks its structure: SQLite's `quick_check` (every page of
    /// every table and index, its cells and free space), or with `thorough` its
    /// `integrity_check` (the same, and every index entry against its row). On a reader, in one
    /// read transaction: saves and fetches go on meanwhile.
    ///
    /// - Throws: ``ObjectGraphError/corruptStore(path:message:)`` naming the first problems
    ///   found; the store then refuses to write (see ``StoreDamage``).
    func checkIntegrity(thorough: Bool) throws(ObjectGraphError) {
        let problems = try withReadConnection { connection throws(ObjectGraphError) -> [String] in
            let statement = try connection.prepare("PRAGMA \(thorough ? "integrity_check" : "quick_check")(\(Self.listedIntegrityProblems))")
            defer { statement.reset() }
            var problems: [String] = []
            while try statement.step() {
                let line = statement.string(at: 0)
                if line != "ok" { problems.append(line.split(whereSeparator: \.isNewline).joined(separator: " ")) }
            }
            return problems
        }
        guard problems.isEmpty else {
            let error = ObjectGraphError.corruptStore(path: path, message: problems.joined(separator: "; "))
            damage.note(error)
            throw error
        }
    }
}
