import Foundation
import ObjectGraph

/// Draws the board: a redrawn, highlighted table on a terminal, or one plain line per
/// difference otherwise.
struct BoardRenderer {
    let isTerminal: Bool
    /// The kind of store, for the heading.
    var storeName = "SQLite"
    let startedAt = Date()

    private static let reset = "\u{1B}[0m"
    private static let green = "\u{1B}[32m"
    private static let yellow = "\u{1B}[33m"
    private static let cyan = "\u{1B}[36m"
    private static let red = "\u{1B}[31m"
    private static let bold = "\u{1B}[1m"
    private static let dim = "\u{1B}[2m"

    /// What happened to each row of the new board, and which titles left.
    struct Marks {
        var inserted: Set<Int> = []
        var updated: Set<Int> = []
        var moved: Set<Int> = []
        var removedTitles: [String] = []
    }

    static func marks(of difference: CollectionDifference<Item>) -> Marks {
        var marks = Marks()
        var removed: Set<ObjectIdentifier> = []
        for case let .remove(_, item, _) in difference.removals { removed.insert(ObjectIdentifier(item)) }
        var reinserted: Set<ObjectIdentifier> = []
        for case let .insert(offset, item, associated) in difference.insertions {
            if associated != nil {
                marks.moved.insert(offset)
            } else if removed.contains(ObjectIdentifier(item)) {
                marks.updated.insert(offset)
            } else {
                marks.inserted.insert(offset)
            }
            reinserted.insert(ObjectIdentifier(item))
        }
        for case let .remove(_, item, _) in difference.removals where !reinserted.contains(ObjectIdentifier(item)) {
            marks.removedTitles.append(item.title)
        }
        return marks
    }

    @MainActor
    func render(_ model: BoardViewModel, board: ObservableBoard, difference: CollectionDifference<Item>) {
        let marks = Self.marks(of: difference)
        let observed = "Observation form: \(board.rows.count) rows, \(board.rankedUnder50) ranked under 50, "
            + "\(board.changesSeen) changes seen, \(board.rows == model.rows ? "same rows as the Combine form" : "rows differ!")"
        if isTerminal { redraw(model, marks: marks, observed: observed) } else { printLine(model, marks: marks, observed: observed) }
    }

    private func printLine(_ model: BoardViewModel, marks: Marks, observed: String) {
        var parts: [String] = []
        // The titles say whose items changed when several processes edit the board.
        func titles(_ offsets: Set<Int>) -> String {
            offsets.sorted().compactMap { model.rows.indices.contains($0) ? model.rows[$0].title : nil }.joined(separator: ", ")
        }
        if !marks.inserted.isEmpty { parts.append("+\(marks.inserted.count) inserted (\(titles(marks.inserted)))") }
        if !marks.updated.isEmpty { parts.append("~\(marks.updated.count) updated (\(titles(marks.updated)))") }
        if !marks.moved.isEmpty { parts.append("↕\(marks.moved.count) moved (\(titles(marks.moved)))") }
        if !marks.removedTitles.isEmpty { parts.append("-\(marks.removedTitles.count) removed (\(marks.removedTitles.joined(separator: ", ")))") }
        let first = model.rows.first.map { "first: \($0.title) [\($0.bucket)]" } ?? "empty"
        print("difference \(model.differenceCount): \(parts.joined(separator: ", ")); \(model.rows.count) rows; \(first). \(observed)")
        fflush(nil)
    }

    private func redraw(_ model: BoardViewModel, marks: Marks, observed: String) {
        let height = max(terminalHeight() - 7, 5)
        var screen = "\u{1B}[H\u{1B}[2J"
        screen += "\(Self.bold)Streams demo\(Self.reset) — a live board over ObjectGraph on \(storeName) (changesPublisher + applyingChanges)\n"
        screen += "\(Self.dim)\(observed)\(Self.reset)\n"
        screen += "\(Self.dim)difference \(model.differenceCount) · \(model.rows.count) items · \(String(format: "%.1f", Date().timeIntervalSince(startedAt))) s · "
        screen += "\(Self.green)+ inserted\(Self.dim) \(Self.yellow)~ updated\(Self.dim) \(Self.cyan)↕ moved\(Self.dim) \(Self.red)- removed\(Self.reset)\n\n"
        screen += "   rank  title                      bucket\n"
        for (offset, row) in model.rows.prefix(height).enumerated() {
            let (color, sign) = marks.inserted.contains(offset) ? (Self.green, "+")
                : marks.updated.contains(offset) ? (Self.yellow, "~")
                : marks.moved.contains(offset) ? (Self.cyan, "↕") : ("", " ")
            let title = row.title.padding(toLength: 26, withPad: " ", startingAt: 0)
            screen += "\(color) \(sign) \(String(format: "%4d", row.rank))  \(title) \(row.bucket)\(Self.reset)\n"
        }
        if model.rows.count > height { screen += "\(Self.dim)   … \(model.rows.count - height) more\(Self.reset)\n" }
        if !marks.removedTitles.isEmpty {
            screen += "\(Self.red) - removed: \(marks.removedTitles.joined(separator: ", "))\(Self.reset)\n"
        }
        print(screen, terminator: "")
        fflush(nil)
    }

    private func terminalHeight() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return 24 }
        return Int(size.ws_row)
    }
}
