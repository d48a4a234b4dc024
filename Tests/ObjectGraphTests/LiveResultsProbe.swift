import Foundation
import ObjectGraph
import Streams
import StreamsTesting

/// A table kept up to date only from a controller's delegate calls (index paths), as a table
/// view applies a batch.
final class EntryTable: FetchedResultsControllerDelegate {
    var rows: [Entry] = []
    var problems: [String] = []
    private var batch: [(Entry, IndexPath?, ResultsChangeType, IndexPath?)] = []

    func controllerWillChangeContent(_ controller: FetchedResultsController<Entry>) { batch = [] }

    func controller(_ controller: FetchedResultsController<Entry>, didChange object: Entry, at indexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {
        batch.append((object, indexPath, type, newIndexPath))
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<Entry>) {
        var removals: [(Int, Entry)] = []
        var insertions: [(Int, Entry)] = []
        for (object, old, type, new) in batch {
            switch type {
            case .insert: insertions.append((new![1], object))
            case .delete: removals.append((old![1], object))
            case .move, .update:
                removals.append((old![1], object))
                insertions.append((new![1], object))
            }
        }
        for (index, object) in removals.sorted(by: { $0.0 > $1.0 }) {
            guard rows.indices.contains(index), rows[index] === object else {
                problems.append("the table's row \(index) does not hold \(object)")
                return
            }
            rows.remove(at: index)
        }
        for (index, object) in insertions.sorted(by: { $0.0 < $1.0 }) {
            guard index <= rows.count else {
                problems.append("the table has no row \(index) to insert \(object) at")
                return
            }
            rows.insert(object, at: index)
        }
    }

    func controller(_ controller: FetchedResultsController<Entry>, didFailWith error: ObjectGraphError) {
        problems.append("failure: \(error)")
    }
}

/// Every kind of live result on one request in one context.
final class LiveResults {
    let request: FetchRequest<Entry>
    let controller: FetchedResultsController<Entry>
    let table = EntryTable()
    let unlimited = TestSubscriber<CollectionDifference<Entry>, ObjectGraphError>()
    let coalesced = TestSubscriber<CollectionDifference<Entry>, ObjectGraphError>()
    var unlimitedRows: [Entry] = []
    var coalescedRows: [Entry] = []
    let titles = CurrentValueSubject<[String], Never>([])
    private var titlesFollower: AnyCancellable?

    /// Made on the context's queue.
    init(_ request: FetchRequest<Entry>, in context: ManagedObjectContext) throws {
        self.request = request
        controller = try FetchedResultsController(fetchRequest: request, context: context)
        controller.delegate = table
        try controller.performFetch()
        table.rows = controller.fetchedObjects
        context.changesPublisher(for: request).subscribe(unlimited)
        context.changesPublisher(for: request).subscribe(coalesced)
        unlimited.request(.unlimited)
        let titles = titles
        titlesFollower = titles.applyingChanges(context.changesPublisher(for: request)) { $0.title }
            .sink(receiveCompletion: { _ in }, receiveValue: { titles.value = $0 })
    }

    /// Asks the coalesced subscriber for one difference (the changes of a whole step at once).
    func pull() { coalesced.request(.max(1)) }

    /// What differs from `fresh`, the request's results fetched now. On the context's queue.
    func problems(against fresh: [Entry]) -> [String] {
        var problems: [String] = []
        func differs(_ label: String, _ rows: [Entry]) {
            if rows != fresh { problems.append("\(label) \(rows.map(\.title)) ≠ fetch \(fresh.map(\.title))") }
        }
        for difference in unlimited.values.dropFirst(unlimitedApplied) {
            unlimitedRows = unlimitedRows.applying(difference) ?? { problems.append("a difference does not apply"); return [] }()
        }
        unlimitedApplied = unlimited.values.count
        for difference in coalesced.values.dropFirst(coalescedApplied) {
            coalescedRows = coalescedRows.applying(difference) ?? { problems.append("a coalesced difference does not apply"); return [] }()
        }
        coalescedApplied = coalesced.values.count
        differs("controller", controller.fetchedObjects)
        differs("delegate table", table.rows)
        differs("changesPublisher", unlimitedRows)
        differs("coalesced changesPublisher", coalescedRows)
        if titles.value != fresh.map(\.title) { problems.append("applyingChanges \(titles.value) ≠ \(fresh.map(\.title))") }
        problems += table.problems
        if unlimited.completion != nil || coalesced.completion != nil { problems.append("a stream ended") }
        return problems
    }

    private var unlimitedApplied = 0
    private var coalescedApplied = 0
}
