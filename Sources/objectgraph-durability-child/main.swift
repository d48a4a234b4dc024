// The child process of the SQLite durability tests.
//
// `objectgraph-durability-child <store path>` opens the store and saves one new
// `DurabilityRecord` per save, forever, writing each completed save's number to stdout. The test
// kills it with SIGKILL and checks that every number it read is in the file.
//
// `objectgraph-durability-child migrate <store path>` opens the store with version 2 of the model,
// whose migration stage rewrites every record, saves, writes `stage` to stdout and then works
// forever: the test kills it with SIGKILL in the middle of the migration and checks that the
// file is exactly as it was.
//
// The test declares the same classes, so that both sides open the file with the same models.
import Dispatch
import Foundation
import ObjectGraph

final class DurabilityRecord: ManagedObject {
    @Attribute var sequence: Int = 0
    @Attribute var payload: String = ""
}

/// Version 2: every record gets a checksum, which a stage computes.
enum MigratedRecords {
    final class DurabilityRecord: ManagedObject {
        @Attribute var sequence: Int = 0
        @Attribute var payload: String = ""
        @Attribute var checksum: Int = 0
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 1 || (arguments.count == 2 && arguments[0] == "migrate") else {
    FileHandle.standardError.write(Data("usage: objectgraph-durability-child [migrate] <store path>\n".utf8))
    exit(2)
}

if arguments.count == 2 {
    do {
        let previous = try ObjectModel(entities: [DurabilityRecord.self])
        let model = try ObjectModel(version: 2, entities: [MigratedRecords.DurabilityRecord.self])
        let stage = MigrationStage("checksums", from: previous, to: model) { migration in
            for old in try migration.old!.fetch(FetchRequest<DurabilityRecord>()) {
                let record = try migration.newObject(for: old, as: MigratedRecords.DurabilityRecord.self)
                record.checksum = old.sequence &* 7
                record.payload = String(old.payload.reversed())
            }
            try migration.new.save()
            FileHandle.standardOutput.write(Data("stage\n".utf8))
            // A long stage: the test kills the process here, the migration's transaction open.
            while true { Thread.sleep(forTimeInterval: 0.05) }
        }
        // A page cache smaller than the stage's changes (about 6 MiB), so that SQLite spills
        // them into the WAL before the commit: the case the test is about.
        var options = SQLiteOptions()
        options.pageCacheSize = 2 << 20
        _ = try PersistentContainer(
            model: model, store: .sqlite(URL(fileURLWithPath: arguments[1]), migrationPlan: MigrationPlan(stages: [stage]), options: options),
            viewContextQueue: DispatchQueue(label: "durability-child.migrate"))
        FileHandle.standardError.write(Data("objectgraph-durability-child: the migration ended\n".utf8))
        exit(1)
    } catch {
        FileHandle.standardError.write(Data("objectgraph-durability-child: \(error)\n".utf8))
        exit(1)
    }
}

do {
    let model = try ObjectModel(entities: [DurabilityRecord.self])
    let url = URL(fileURLWithPath: arguments[0])
    let container = try PersistentContainer(model: model, storeURL: url, viewContextQueue: DispatchQueue(label: "durability-child"))
    let context = container.newBackgroundContext()
    try context.performAndWait {
        var sequence = 0
        while true {
            sequence += 1
            let record = DurabilityRecord(context: context)
            record.sequence = sequence
            record.payload = String(repeating: "x", count: sequence % 512)
            try context.save()
            // Unbuffered, so that the test reads exactly the saves that returned.
            FileHandle.standardOutput.write(Data("\(sequence)\n".utf8))
        }
    }
} catch {
    FileHandle.standardError.write(Data("objectgraph-durability-child: \(error)\n".utf8))
    exit(1)
}
