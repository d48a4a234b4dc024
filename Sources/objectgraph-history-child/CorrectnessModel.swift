// With `--correctness`, the child opens the file with the model of the parent's model-based test
// (CorrectnessModel.swift in the tests, declared the same here) and runs these commands, each
// saved at once with the object-wins policy, answering `ok <history token> <new key or ->`:
//
//     shelf <name> <priority>
//     entry <title> <score bits> <shelf key|-> <mark key|->
//     mark <title>
//     retitle <entry key> <title>
//     rescore <entry key> <score bits>
//     reprioritise <shelf key> <priority> <name>
//     file <entry key> <shelf key|->
//     link <entry key> <mark key>
//     unlink <entry key> <mark key>
//     delete <entity> <key>
import Foundation
import ObjectGraph

final class Shelf: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var priority: Int = 0
    @Relationship(inverse: "shelf") var entries: Set<Entry>
}

final class Entry: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var score: Double = 0
    @Relationship(inverse: "entries") var shelf: Shelf?
    @Relationship(inverse: "entries") var marks: Set<Mark>
}

final class Mark: ManagedObject {
    @Attribute var title: String = ""
    @Relationship(inverse: "marks") var entries: Set<Entry>
}

final class Unobserved: ManagedObject {
    @Attribute var payload: Int = 0
}

enum CorrectnessCommands {
    static let model: ObjectModel = try! ObjectModel(entities: [Shelf.self, Entry.self, Mark.self, Unobserved.self])

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs one command in `context` and saves; returns the key of the object it made, if any.
    static func run(_ words: [String], in context: ManagedObjectContext) throws -> Int64? {
        func object<T: ManagedObject>(_ key: String, as type: T.Type) throws -> T {
            guard let primaryKey = Int64(key), let entity = model.entity(named: "\(T.self)"),
                  let found = context.object(with: ObjectID(entity: entity, primaryKey: primaryKey), as: T.self) else {
                throw Failure(description: "no \(T.self) \(key)")
            }
            return found
        }
        func optional<T: ManagedObject>(_ key: String, as type: T.Type) throws -> T? {
            key == "-" ? nil : try object(key, as: T.self)
        }
        func score(_ bits: String) -> Double { Double(bitPattern: UInt64(bits) ?? 0) }
        var made: ManagedObject?
        switch (words.first ?? "", words.count) {
        case ("shelf", 3):
            let shelf = Shelf(context: context)
            shelf.name = words[1]
            shelf.priority = Int(words[2]) ?? 0
            made = shelf
        case ("entry", 5):
            let entry = Entry(context: context)
            entry.title = words[1]
            entry.score = score(words[2])
            entry.shelf = try optional(words[3], as: Shelf.self)
            if let mark = try optional(words[4], as: Mark.self) { entry.marks.insert(mark) }
            made = entry
        case ("mark", 2):
            let mark = Mark(context: context)
            mark.title = words[1]
            made = mark
        case ("retitle", 3):
            try object(words[1], as: Entry.self).title = words[2]
        case ("rescore", 3):
            try object(words[1], as: Entry.self).score = score(words[2])
        case ("reprioritise", 4):
            let shelf = try object(words[1], as: Shelf.self)
            shelf.priority = Int(words[2]) ?? 0
            shelf.name = words[3]
        case ("file", 3):
            try object(words[1], as: Entry.self).shelf = try optional(words[2], as: Shelf.self)
        case ("link", 3):
            try object(words[1], as: Entry.self).marks.insert(try object(words[2], as: Mark.self))
        case ("unlink", 3):
            try object(words[1], as: Entry.self).marks.remove(try object(words[2], as: Mark.self))
        case ("delete", 3):
            switch words[1] {
            case "Shelf": context.delete(try object(words[2], as: Shelf.self))
            case "Entry": context.delete(try object(words[2], as: Entry.self))
            default: context.delete(try object(words[2], as: Mark.self))
            }
        default:
            throw Failure(description: "unknown command '\(words.joined(separator: " "))'")
        }
        try context.save()
        return made?.objectID?.primaryKey
    }
}
