// The child process of the SQLite durability test: opens the store at the path it is given and
// saves one new `DurabilityRecord` per save, forever, writing each completed save's number to
// stdout. The test kills it with SIGKILL and checks that every number it read is in the file.
//
// The test declares the same class, so that both sides open the file with the same model.
import Dispatch
import Foundation
import ObjectGraph

final class DurabilityRecord: ManagedObject {
    @Attribute var sequence: Int = 0
    @Attribute var payload: String = ""
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: objectgraph-durability-child <store path>\n".utf8))
    exit(2)
}

do {
    let model = try ObjectModel(entities: [DurabilityRecord.self])
    let url = URL(fileURLWithPath: CommandLine.arguments[1])
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
