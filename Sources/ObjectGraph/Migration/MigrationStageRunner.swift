import Dispatch

/// Runs a ``MigrationStage`` between the two halves of its step: a context on the previous
/// model (read-only) and one on the new model, both reading and writing through the
/// migration's connection, inside its transaction.
enum MigrationStageRunner {
    /// Runs `stage`; `makeStore` makes a store on a layout that reads and writes through the
    /// migration's connection.
    static func run(
        _ stage: MigrationStage, step: MigrationStep, path: String, makeStore: (ObjectModel, StoredSchema) -> any PersistentStore
    ) throws(ObjectGraphError) {
        // One queue for both contexts: the stage uses them together.
        let queue = DispatchQueue(label: "ObjectGraph.migration")
        if let mismatch = step.newLayout.mismatch(with: stage.model) {
            throw .corruptStore(path: path, message: "the migration's layout does not describe the stage's model: \(mismatch)")
        }
        let newStore = makeStore(stage.model, step.newLayout)
        let new = ManagedObjectContext(name: "migration.new", queue: queue, coordinator: StoreCoordinator(model: stage.model, store: newStore))
        var old: ManagedObjectContext?
        if let previous = stage.previousModel {
            if let mismatch = step.oldLayout.mismatch(with: previous) {
                throw .invalidMigrationPlan("the previous model of the stage '\(stage.name)' does not describe the file: \(mismatch)")
            }
            let oldStore = ReadOnlyStore(base: makeStore(previous, step.oldLayout))
            old = ManagedObjectContext(name: "migration.old", queue: queue, coordinator: StoreCoordinator(model: previous, store: oldStore))
        }
        let migration = Migration(old: old, new: new, stageName: stage.name, newEntityNames: step.newEntityNames)
        do {
            try queue.sync {
                // Objects the stage kept must not reach the connection once the stage is over.
                defer {
                    old?.reset()
                    new.reset()
                }
                try stage.migrate(migration)
                if new.hasChanges { try new.save() }
            }
        } catch {
            throw .migrationStageFailed(path: path, stage: stage.name, message: "\(error)")
        }
    }
}
