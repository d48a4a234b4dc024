import Foundation

/// Brings a file to the app's model when a ``SQLiteStore`` opens it: reads what the file says
/// about itself, plans every step (stages of the ``MigrationPlan`` and automatic steps between
/// them) from the descriptions alone — so that a refusal comes before anything is written —
/// then runs them all and records the result in one transaction.
///
/// Newer and older are told apart by the model's version (``ObjectModel/version``), as Realm's
/// `schemaVersion` does; the stages run are recorded by name, as GRDB's migrator does, so that
/// each runs once. A file at a higher version than the model is refused unchanged; a removal
/// needs a higher version than the file's. Files of the first release, which recorded neither,
/// are at version 0.
struct StoreMigrator<Connection: SQLConnection> {
    let connection: Connection
    let model: ObjectModel
    let plan: MigrationPlan
    /// A store on a layout that reads and writes through ``connection``, for a stage's contexts.
    let makeStagingStore: (ObjectModel, StoredSchema) -> any PersistentStore
    /// Called first thing in each transaction that changes the schema, so that two openers
    /// take turns (SQLite's `BEGIN IMMEDIATE` already does; PostgreSQL takes a lock).
    var lockSchema: () throws(ObjectGraphError) -> Void = {}

    /// What a file says about itself.
    struct FileState {
        let metadata: StoreMetadata
        let schema: StoredSchema
        let version: Int
        let stages: Set<String>
        /// Written by the first release: its description is still to be recorded.
        let isLegacy: Bool
    }

    struct PlannedStep {
        let step: MigrationStep
        let stage: MigrationStage?
    }

    /// A new file's tables and metadata, for the model; inside the caller's transaction.
    func createFile() throws(ObjectGraphError) -> OpenedSchema {
        let schema = model.newFileSchema.value(for: model).schema
        for statement in SchemaDefinitions(schema, dialect: connection.dialect).creationStatements { try connection.execute(statement) }
        try StoreMetadata.write(StoreMetadata.rows(schema: schema, model: model), to: connection)
        return OpenedSchema(stored: schema, isModelsNewFileSchema: true)
    }

    /// Migrates the file if it needs it; returns its schema, which describes the model.
    func bringUpToDate() throws(ObjectGraphError) -> OpenedSchema {
        if let unchanged = try unchangedSchema() { return OpenedSchema(stored: unchanged, isModelsNewFileSchema: true) }
        let migrated = try migrate()
        return OpenedSchema(stored: migrated, isModelsNewFileSchema: false)
    }

    /// ``bringUpToDate()`` for a file that does not hold the model's new-file schema at the
    /// model's version.
    private func migrate() throws(ObjectGraphError) -> StoredSchema {
        let state = try readState()
        if plan.erasesStoreOnModelChange, differsFromModel(state) {
            return try connection.writeTransaction { () throws(ObjectGraphError) -> StoredSchema in
                try lockSchema()
                try eraseEverything(state)
                return try createFile().stored
            }
        }
        let steps = try planSteps(from: state)
        guard needsWriting(state, steps) else { return state.schema }
        return try connection.writeTransaction { () throws(ObjectGraphError) -> StoredSchema in
            try lockSchema()
            // Another connection may have migrated the file since the first look.
            var state = state
            var steps = steps
            let now = try readState()
            if now.metadata != state.metadata {
                state = now
                steps = try planSteps(from: now)
                guard needsWriting(state, steps) else { return state.schema }
            }
            let executor = MigrationExecutor(
                connection: connection, rebuildsTables: plan.rebuildsTablesToDropColumns && connection.dialect == .sqlite, model: model)
            for planned in steps {
                try executor.run(planned.step) { () throws(ObjectGraphError) in
                    guard let stage = planned.stage else { return }
                    try MigrationStageRunner.run(stage, step: planned.step, path: connection.path, makeStore: makeStagingStore)
                }
            }
            let final = steps.last?.step.target ?? state.schema
            try StoreMetadata.write(StoreMetadata.rows(schema: final, model: model, stages: steps.compactMap(\.stage?.name)), to: connection)
            return final
        }
    }

    /// The model's own layout when the file describes exactly it, at the model's version: then
    /// there is nothing to plan, decode or write. Most opens are of such a file, and this keeps
    /// them to reading one small table.
    private func unchangedSchema() throws(ObjectGraphError) -> StoredSchema? {
        guard try connection.tableNames().contains(SQLSchema.metadataTableName) else { return nil }
        let metadata = try StoreMetadata.read(from: connection)
        guard metadata.format == SQLSchema.formatVersion, metadata.modelVersion == model.version, let text = metadata.schema else { return nil }
        let (schema, encoded) = model.newFileSchema.value(for: model)
        return text == encoded ? schema : nil
    }

    private func needsWriting(_ state: FileState, _ steps: [PlannedStep]) -> Bool {
        !steps.isEmpty || state.version != model.version || state.isLegacy
    }

    // MARK: Reading

    func readState() throws(ObjectGraphError) -> FileState {
        let path = connection.path
        let tables = try connection.tableNames()
        guard tables.contains(SQLSchema.metadataTableName) else {
            throw .incompatibleStore(
                path: path, message: "it is a \(connection.dialect.name) database but not an ObjectGraph store; its tables are \(tables.sorted().joined(separator: ", "))")
        }
        let metadata = try StoreMetadata.read(from: connection)
        let format = metadata.format ?? "(none)"
        guard format == SQLSchema.formatVersion else {
            throw .incompatibleStore(path: path, message: "the file has store format \(format), this version reads format \(SQLSchema.formatVersion)")
        }
        if let text = metadata.schema {
            let described = StoredSchema.decodeFormat(text)
            guard described <= StoredSchema.currentFormat else {
                throw .incompatibleStore(path: path, message: "it describes its schema in format \(described), newer than this version of ObjectGraph reads (\(StoredSchema.currentFormat)); open it with a newer version")
            }
            guard let schema = StoredSchema.decode(text) else {
                throw .corruptStore(path: path, message: "its schema description cannot be read")
            }
            return FileState(metadata: metadata, schema: schema, version: metadata.modelVersion ?? 1, stages: metadata.stages, isLegacy: false)
        }
        guard connection.dialect == .sqlite else {
            throw .incompatibleStore(path: path, message: "its metadata has no schema description")
        }
        let fingerprint = metadata.fingerprint ?? ""
        switch LegacySchema.reconstruct(fingerprint: fingerprint, model: StoredSchema(model: model), file: try fileTables()) {
        case .success(let schema):
            return FileState(metadata: metadata, schema: schema, version: 0, stages: [], isLegacy: true)
        case .failure(let problem):
            throw .incompatibleStore(path: path, message: problem.message)
        }
    }

    private func fileTables() throws(ObjectGraphError) -> LegacySchema.FileTables {
        var file = LegacySchema.FileTables()
        let columns = try connection.prepare("SELECT name FROM pragma_table_info(?1)")  // SQLite only (see readState)
        for table in try connection.tableNames() {
            try columns.bind(table, at: 1)
            var names: [String] = []
            while try columns.step() { names.append(columns.string(at: 0)) }
            columns.reset()
            file.columns[table] = names
        }
        file.indexes = try connection.storeIndexes()
        return file
    }

    // MARK: Planning

    /// Every step from the file's state to the model, or the refusal of the first step that
    /// cannot be made. Without `stages`, one automatic step.
    func planSteps(from state: FileState, stages: Bool = true) throws(ObjectGraphError) -> [PlannedStep] {
        let path = connection.path
        guard state.version <= model.version else {
            throw .newerStore(path: path, fileVersion: state.version, modelVersion: model.version)
        }
        var steps: [PlannedStep] = []
        var current = state.schema
        var version = state.version
        func step(to target: ObjectModel, stage: MigrationStage?) throws(ObjectGraphError) -> MigrationStep {
            let planner = MigrationPlanner(
                old: current, new: StoredSchema(model: target), allowsRemovals: target.version > version,
                conversions: Set(stage?.conversions ?? []),
                context: .init(fileVersion: version, modelVersion: target.version, stage: stage?.name))
            do {
                return try planner.plan()
            } catch {
                throw .migrationRefused(path: path, changes: error.changes)
            }
        }
        let pending = stages ? try plan.orderedStages(for: model).filter { $0.model.version > state.version && !state.stages.contains($0.name) } : []
        for stage in pending {
            if let previous = stage.previousModel {
                guard previous.version >= version else {
                    throw .invalidMigrationPlan("the stage '\(stage.name)' reads objects of version \(previous.version), but the file is already at version \(version)")
                }
                let automatic = try step(to: previous, stage: nil)
                if !automatic.isEmpty(from: current) { steps.append(PlannedStep(step: automatic, stage: nil)) }
                current = automatic.target
                version = previous.version
            }
            let staged = try step(to: stage.model, stage: stage)
            steps.append(PlannedStep(step: staged, stage: stage))
            current = staged.target
            version = max(version, stage.model.version)
        }
        let last = try step(to: model, stage: nil)
        if !last.isEmpty(from: current) { steps.append(PlannedStep(step: last, stage: nil)) }
        return steps
    }

    // MARK: Erasing

    /// Whether the file's version is not the model's, or bringing it to the model would change
    /// its tables or indexes, or cannot be done (for ``MigrationPlan/erasesStoreOnModelChange``).
    /// A first-release file whose model did not change only gets its description written.
    private func differsFromModel(_ state: FileState) -> Bool {
        if !state.isLegacy && state.version != model.version { return true }
        guard let steps = try? planSteps(from: state, stages: false) else { return true }
        var current = state.schema
        for planned in steps {
            if planned.step.changesStorage(from: current) { return true }
            current = planned.step.target
        }
        return false
    }

    /// Drops the store's tables: in a SQLite file every table; in a PostgreSQL schema, which
    /// may hold other tables, those the store's layout and its own bookkeeping name.
    private func eraseEverything(_ state: FileState) throws(ObjectGraphError) {
        var tables = try connection.tableNames().filter { !$0.hasPrefix("sqlite_") }
        if connection.dialect != .sqlite {
            let definitions = SchemaDefinitions(state.schema, dialect: connection.dialect)
            let owned = Set((definitions.tables + definitions.joinTables + definitions.orderTables).map { connection.dialect.fittedName($0.name) })
            tables = tables.filter { owned.contains($0) || $0.hasPrefix("objectgraph-") }
        }
        for table in tables.sorted() {
            for statement in MigrationOperation.dropTable(table).statements(in: connection.dialect) { try connection.execute(statement) }
        }
    }
}
