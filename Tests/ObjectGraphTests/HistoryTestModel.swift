import Dispatch
import Foundation
import ObjectGraph

// The model of the history and change-feed tests. The `objectgraph-history-child` executable
// declares the same classes, so that both processes open the file with the same model.

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

enum HistoryModel {
    static let model: ObjectModel = try! ObjectModel(entities: [Board.self, Card.self])
}
