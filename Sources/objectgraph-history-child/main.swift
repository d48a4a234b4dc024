// The child process of the change-feed tests: another process writing the same store.
//
// `objectgraph-history-child <store path> [--postgresql] [--silent] [--correctness]` opens the
// store (with `--postgresql`, the first argument is a PostgreSQL connection string; with
// `--silent`, its saves wake nobody: the parent must notice them on its own; with
// `--correctness`, with the model of the model-based test, see CorrectnessModel.swift) and runs
// the commands it reads, one per line, answering each with `ok <history token>` once it is
// saved, or `error <reason>`:
//
//     board <title>                   a new board
//     card <title> <rank> [<board>]   a new card
//     rank <title> <rank>             sets a card's rank
//     rename <title> <new title>      renames a card
//     move <title> <board>            puts a card on a board (`-` for none)
//     retitle <board> <new title>     renames a board
//     delete <title>                  deletes a card
//     batch-rank <minimum> <rank>     batch update: cards ranked at least <minimum> get <rank>
//     batch-delete <rank>             batch delete of the cards ranked <rank>
//     many <prefix> <count>           <count> saves of one new card each, titled <prefix>-<n>
//     churn                           saves for ever (inserts, updates, deletes), printing
//                                     `saved <n>` after each: the parent kills it mid-save
//     trim                            deletes the history before the current token
//     quit
//
// Every command but `many` and `churn` is saved at once. The parent test declares the same
// classes, so that both processes open the file with the same model.
import Dispatch
import Foundation
import ObjectGraph

final class Board: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var priority: Int = 0
    @Relationship(inverse: "board", deleteRule: .cascade) var cards: Set<Card>
}

final class Card: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var rank: Int = 0
    @Attribute var writer: String = ""
    @Relationship(inverse: "cards") var board: Board?
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: objectgraph-history-child <store path or connection string> [--postgresql] [--silent] [--correctness]\n".utf8))
    exit(2)
}
var options = ChangeFeedOptions()
options.wakesOtherWriters = !arguments.contains("--silent")

let correctness = arguments.contains("--correctness")
let container: PersistentContainer
do {
    container = try PersistentContainer(
        model: correctness ? CorrectnessCommands.model : try ObjectModel(entities: [Board.self, Card.self]),
        store: arguments.contains("--postgresql") ? .postgreSQL(path) : .sqlite(URL(fileURLWithPath: path)), changeFeed: options)
} catch {
    FileHandle.standardError.write(Data("objectgraph-history-child: \(error)\n".utf8))
    exit(1)
}
let context = container.newBackgroundContext(name: "child")
let writer = "child-\(ProcessInfo.processInfo.processIdentifier)"

func card(_ title: String) throws -> Card {
    guard let card = try context.fetch(FetchRequest<Card>(predicate: #Predicate { $0.title == title })).first else {
        throw ObjectGraphError.unknownProperty(entity: "Card", property: title)
    }
    return card
}

func board(_ title: String) throws -> Board? {
    title == "-" ? nil : try context.fetch(FetchRequest<Board>(predicate: #Predicate { $0.title == title })).first
}

func token() -> String {
    (try? container.history.currentToken().value).map(String.init) ?? "?"
}

func run(_ words: [String]) throws {
    switch (words.first ?? "", words.count) {
    case ("board", 2):
        Board(context: context).title = words[1]
    case ("card", 3), ("card", 4):
        let card = Card(context: context)
        card.title = words[1]
        card.rank = Int(words[2]) ?? 0
        card.writer = writer
        if words.count == 4 { card.board = try board(words[3]) }
    case ("rank", 3):
        try card(words[1]).rank = Int(words[2]) ?? 0
    case ("rename", 3):
        try card(words[1]).title = words[2]
    case ("move", 3):
        try card(words[1]).board = try board(words[2])
    case ("retitle", 3):
        try board(words[1])?.title = words[2]
    case ("delete", 2):
        context.delete(try card(words[1]))
    case ("batch-rank", 3):
        let minimum = Int(words[1]) ?? 0
        try context.execute(BatchUpdate<Card>(where: #Predicate { $0.rank >= minimum }, set: \.rank, to: Int(words[2]) ?? 0))
    case ("batch-delete", 2):
        let rank = Int(words[1]) ?? 0
        try context.delete(Card.self, where: #Predicate { $0.rank == rank })
    case ("many", 3):
        for index in 0..<(Int(words[2]) ?? 0) {
            let card = Card(context: context)
            card.title = "\(words[1])-\(index)"
            card.rank = index
            card.writer = writer
            try context.save()
        }
    case ("churn", 1):
        var round = 0
        while true {
            round += 1
            for index in 0..<50 {
                let card = Card(context: context)
                card.title = "churn-\(round)-\(index)"
                card.rank = index
                card.writer = writer
            }
            for card in try context.fetch(FetchRequest<Card>(predicate: #Predicate { $0.title.starts(with: "churn-") })) {
                if card.rank % 3 == 0 { context.delete(card) } else { card.rank += 1 }
            }
            try context.save()
            say("saved \(round)")
        }
    case ("trim", 1):
        try container.history.deleteHistory(before: container.history.currentToken())
    default:
        throw ObjectGraphError.unknownEntity("command '\(words.joined(separator: " "))'")
    }
    try context.save()
}

while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    if words == ["quit"] { break }
    context.performAndWait {
        do {
            if correctness {
                context.mergePolicy = .objectWins
                let made = try CorrectnessCommands.run(words, in: context)
                say("ok \(token()) \(made.map(String.init) ?? "-")")
            } else {
                try run(words)
                say("ok \(token())")
            }
        } catch {
            context.rollback()
            say("error \(error)")
        }
    }
}
container.close()
