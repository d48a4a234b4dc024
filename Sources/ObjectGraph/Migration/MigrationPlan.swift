/// How a SQLite store brings a file written by an earlier model to the app's model: the
/// ``MigrationStage``s for what cannot be inferred, in order. Everything else migrates by
/// itself (see `Docs/Migrations.md`).
///
/// ```swift
/// let plan = MigrationPlan(stages: [
///     MigrationStage("ratings become numbers", from: V2.model, to: V3.model, converting: ["Review.rating"]) { migration in
///         for old in try migration.old!.fetch(FetchRequest<V2.Review>()) {
///             try migration.newObject(for: old, as: V3.Review.self).rating = Int(old.rating) ?? 0
///         }
///     },
/// ])
/// let container = try PersistentContainer(model: V3.model, storeURL: url, migrationPlan: plan)
/// ```
///
/// A file records the version of the model that last brought it up to date and the stages run
/// on it. Opening runs, in one transaction, the stages to versions above the file's that it has
/// not run yet, with automatic steps before, between and after them; a failure anywhere leaves
/// the file exactly as it was.
public struct MigrationPlan: Sendable {
    /// The stages, in the order they run (by their models' versions, then as listed).
    public var stages: [MigrationStage]
    /// For prototypes only: when the file's schema differs from the model's in any way (or the
    /// file is of another version), erase every object and start the file afresh instead of
    /// migrating it — as GRDB's `eraseDatabaseOnSchemaChange`. Never on by default: it throws
    /// the users' data away.
    public var erasesStoreOnModelChange: Bool
    /// Rebuilds a table (a copy) to drop its columns even where SQLite can drop them in place;
    /// for measuring the copy, which SQLite versions before 3.35 need.
    @_spi(Benchmarks) public var rebuildsTablesToDropColumns = false

    /// A plan with `stages`.
    ///
    /// - Parameters:
    ///   - stages: the stages, in the order of the models' versions.
    ///   - erasesStoreOnModelChange: `true` to erase the store instead of migrating it, for
    ///     prototypes; see ``erasesStoreOnModelChange``.
    public init(stages: [MigrationStage] = [], erasesStoreOnModelChange: Bool = false) {
        self.stages = stages
        self.erasesStoreOnModelChange = erasesStoreOnModelChange
    }

    /// The stages in running order, checked against the app's model.
    func orderedStages(for model: ObjectModel) throws(ObjectGraphError) -> [MigrationStage] {
        var names: Set<String> = []
        for stage in stages {
            guard names.insert(stage.name).inserted else { throw .invalidMigrationPlan("two stages are named '\(stage.name)'; a file records stages by name") }
            guard stage.model.version <= model.version else {
                throw .invalidMigrationPlan("the stage '\(stage.name)' migrates to version \(stage.model.version), above the app's model (version \(model.version))")
            }
            if let previous = stage.previousModel, previous.version >= stage.model.version {
                throw .invalidMigrationPlan("the stage '\(stage.name)' migrates from version \(previous.version) to version \(stage.model.version); its previous model must be of a lower version")
            }
        }
        return stages.enumerated().sorted { ($0.element.model.version, $0.offset) < ($1.element.model.version, $1.offset) }.map(\.element)
    }
}

/// One step of a ``MigrationPlan`` that the app writes itself: it migrates the file to
/// `model`'s version, reading objects as the previous model had them and writing them as the
/// new model has them.
///
/// ```swift
/// MigrationStage("full names", from: V1.model, to: V2.model) { migration in
///     for old in try migration.old!.fetch(FetchRequest<V1.Person>()) {
///         let person = try migration.newObject(for: old, as: V2.Person.self)
///         person.fullName = old.firstName + " " + old.lastName
///     }
/// }
/// ```
///
/// Before the stage, the store adds what the new model adds (attributes with their initial
/// values, entities, relationships) and keeps everything the previous model had; after it, it
/// removes what the new model lacks and creates the new indexes and uniqueness constraints (so
/// a stage can remove duplicates first). What cannot be inferred — a property whose type
/// changes, that becomes required, a relationship whose storage changes, an entity that moves
/// to another hierarchy — must be listed in `converting` (`"Entity.property"` or `"Entity"`, by
/// the new model's names): its new storage starts at the initial value and the stage sets it.
///
/// The stage runs once per file (the file records its name), inside the migration's
/// transaction: if it throws, nothing at all is written.
public struct MigrationStage: Sendable {
    /// The name the file records; never rename a stage that shipped.
    public let name: String
    /// The model before the stage, whose objects ``Migration/old`` reads; `nil` if the stage
    /// reads only the new model.
    public let previousModel: ObjectModel?
    /// The model after the stage; its version is the stage's.
    public let model: ObjectModel
    /// The properties (`"Entity.property"`) and entities (`"Entity"`) the stage converts.
    public let conversions: [String]
    let migrate: @Sendable (Migration) throws -> Void

    /// A stage named `name` that migrates to `model`.
    ///
    /// - Parameters:
    ///   - name: the stage's name, for errors and logs.
    ///   - previousModel: the model of the version before, if the stage reads old objects.
    ///   - model: the model the stage migrates to.
    ///   - conversions: what only the stage can convert; see ``MigrationStage``.
    ///   - migrate: reads ``Migration/old`` and writes ``Migration/new``; the new context is
    ///     saved when it returns.
    public init(
        _ name: String, from previousModel: ObjectModel? = nil, to model: ObjectModel, converting conversions: [String] = [],
        migrate: @escaping @Sendable (Migration) throws -> Void
    ) {
        self.name = name
        self.previousModel = previousModel
        self.model = model
        self.conversions = conversions
        self.migrate = migrate
    }
}
