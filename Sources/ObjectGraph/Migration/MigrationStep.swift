/// What one step of a migration does to a file, worked out by ``MigrationPlanner`` before
/// anything is written and run by ``MigrationExecutor`` inside the migration's transaction.
///
/// A step has two halves around an optional stage: `expand` only adds (tables, columns, join
/// tables, copies of data into them) and renames rows' entities, so that during the stage the
/// previous model still reads every old value (``oldLayout``) while the new model reads and
/// writes the new storage (``newLayout``); `contract` then removes what the new model no longer
/// has, gives every table and column its final name and brings the indexes in line.
struct MigrationStep {
    /// Read-only checks that the data allows the step (a narrower integer holds every value, a
    /// to-many becoming one-to-many has one owner per target), run before any write.
    var checks: [DataCheck] = []
    /// Attributes whose type's shape changed: every stored value must be one the new type reads.
    var valueChecks: [ValueCheck] = []
    var expand: [MigrationOperation] = []
    var contract: [MigrationOperation] = []
    /// The file as the previous model reads it during the stage.
    var oldLayout: StoredSchema
    /// The file as the new model reads and writes it during the stage.
    var newLayout: StoredSchema
    /// The file's schema after the step.
    var target: StoredSchema
    /// The new name of each old entity that stays.
    var newEntityNames: [String: String] = [:]
    /// The indexes of the file that may stay while the step runs: the target has them, and they
    /// read no column the step drops. The others are dropped first (SQLite drops no indexed
    /// column); the missing ones are created last.
    var indexesToKeep: Set<String> = []

    /// Whether the step does nothing at all when it starts from `old`: no statement, the same
    /// indexes, the same description (up to order).
    func isEmpty(from old: StoredSchema) -> Bool {
        checks.isEmpty && valueChecks.isEmpty && !changesStorage(from: old) && old.canonicalEncoding == target.canonicalEncoding
    }

    /// Whether the step changes a table, a column or an index of a file at `old`.
    func changesStorage(from old: StoredSchema) -> Bool {
        !expand.isEmpty || !contract.isEmpty
            || Set(SchemaDefinitions(old).indexes.map { [$0.name, $0.sql] }) != Set(SchemaDefinitions(target).indexes.map { [$0.name, $0.sql] })
    }
}

/// Reads every stored value of an attribute whose type changed its shape (see ``ValueShape``)
/// and asks the new type to read each: the step runs only if it reads them all.
struct ValueCheck {
    /// The entity and the property, by the new model's names.
    let entity: String
    let property: String
    /// Where the values are now: the old table and column, and the `entity` values of the old
    /// entity's rows when the table holds others too.
    let table: String
    let column: String
    let scope: [String]?
    let storedType: AttributeType
    /// The new Swift type, and why it cannot read a stored value (`nil` when it can).
    let typeName: String
    let failure: @Sendable (PropertyValue) -> String?
}

/// A read-only question about the data whose answer decides whether a step may run.
struct DataCheck {
    enum Query: Equatable {
        /// A value of `column` outside `range`: an integer column narrowed to a width the file
        /// did not record. `scope`: the `entity` values of the rows to look at, if not all.
        case valueOutside(table: String, column: String, range: ClosedRange<Int64>, scope: [String]?)
        /// A target linked to more than one owner in a join table (a many-to-many becoming
        /// one-to-many).
        case targetOfSeveralOwners(joinTable: String, targetColumn: String)
    }

    /// Finds at most one row when the data does not allow the step, the value it found as text
    /// in the first column.
    let query: Query
    /// What to refuse if it returns a row; `%@` in ``RefusedChange/reason`` stands for the
    /// first column's value.
    let refusal: RefusedChange
}
