import Dispatch
import Foundation
import ObjectGraph

/// Changes the board from a background context on a timer: inserts, edits, re-ranks (moves),
/// renames buckets, moves items between buckets and deletes, one save per tick.
///
/// Another process may edit the same board (a shared PostgreSQL database or SQLite file): its
/// values win over this editor's for a property both changed (``MergePolicy/storeWins``), and a
/// tick that loses a race with it (an item it just deleted) is rolled back and skipped.
final class BackgroundEditor: @unchecked Sendable {
    // Everything but `timer` is used only on `context`'s queue; `timer` is set up once before
    // it starts and cancelled from that queue.
    private let context: ManagedObjectContext
    private var timer: DispatchSourceTimer?
    private var counter = 0
    private let bucketNames = ["Inbox", "Today", "Later", "Someday", "Done", "Ideas"]
    private let onError: @Sendable (String) -> Void
    /// What this process's items are called: `item 3`, or `alice 3` with a label.
    private let label: String

    init(context: ManagedObjectContext, label: String? = nil, onError: @escaping @Sendable (String) -> Void) {
        self.context = context
        self.label = label ?? "item"
        self.onError = onError
        context.mergePolicy = .storeWins
    }

    /// Creates the buckets and a few items if the store is empty.
    func seedIfEmpty() throws {
        try context.performAndWait {
            guard try context.count(for: FetchRequest<Bucket>()) == 0 else {
                counter = try context.count(for: FetchRequest<Item>())
                return
            }
            let buckets = bucketNames.prefix(3).map { name in
                let bucket = Bucket(context: context)
                bucket.name = name
                return bucket
            }
            for index in 0..<8 {
                insertItem(number: index, into: buckets[index % buckets.count])
            }
            counter = 8
            try context.save()
        }
    }

    func start(every interval: Double) {
        let timer = DispatchSource.makeTimerSource(queue: context.queue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [self] in tick() }
        self.timer = timer
        timer.resume()
    }

    func stop() {
        context.performAndWait { timer?.cancel() }
    }

    private func tick() {
        do {
            let items = try context.fetch(FetchRequest<Item>())
            let buckets = try context.fetch(FetchRequest<Bucket>())
            guard let bucket = buckets.randomElement() else { return }
            switch Int.random(in: 0..<10) {
            case 0...2 where items.count < 18:
                counter += 1
                insertItem(number: counter, into: bucket)
            case 3, 4:
                items.randomElement()?.rank = Int.random(in: 0..<100)  // usually a move
            case 5:
                if let item = items.randomElement() { item.title = edited(item.title) }
            case 6:
                bucket.name = bucketNames.filter { $0 != bucket.name }.randomElement() ?? bucket.name
            case 7:
                items.randomElement()?.bucket = buckets.randomElement()
            default:
                if items.count > 4, let victim = items.randomElement() { context.delete(victim) }
            }
            try context.save()
        } catch ObjectGraphError.mergeConflict, ObjectGraphError.objectNotFound, ObjectGraphError.deleteDenied {
            context.rollback()  // another process got there first; the next tick goes on
        } catch {
            onError("the background save failed: \(error)")
            timer?.cancel()
        }
    }

    private func insertItem(number: Int, into bucket: Bucket) {
        let item = Item(context: context)
        item.title = "\(label) \(number)"
        item.rank = Int.random(in: 0..<100)
        item.bucket = bucket
    }

    private func edited(_ title: String) -> String {
        title.hasSuffix("✎") ? String(title.dropLast(2)) : title + " ✎"
    }
}
