import Foundation
import ObjectGraph

/// A fetched-results controller delegate that records every call in order, and can replay the
/// index paths of a batch onto a sectioned copy of the results, as a table view would.
final class ResultsChangeRecorder: FetchedResultsControllerDelegate {
    typealias Object = Content

    enum Event: CustomStringConvertible {
        case willChange
        case section(name: String, index: Int, type: ResultsChangeType)
        case object(Content, old: IndexPath?, type: ResultsChangeType, new: IndexPath?)
        case didChange
        case difference(CollectionDifference<Content>)
        case failure(ObjectGraphError)

        var description: String {
            switch self {
            case .willChange: "willChange"
            case let .section(name, index, type): "section \(type) \(name) at \(index)"
            case let .object(object, old, type, new):
                "\(type) \(object.name) \(old.map { "\($0)" } ?? "-") → \(new.map { "\($0)" } ?? "-")"
            case .didChange: "didChange"
            case .difference(let difference): "difference of \(difference.count)"
            case .failure(let error): "failure \(error)"
            }
        }
    }

    private(set) var events: [Event] = []
    /// Every kind of change seen so far, such as `move` or `section insert`.
    private(set) var kindsSeen: Set<String> = []

    /// The events since the last call, which are forgotten.
    func takeEvents() -> [Event] {
        defer { events = [] }
        return events
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController<Content>) {
        events.append(.willChange)
    }

    func controller(_ controller: FetchedResultsController<Content>, didChange section: ResultsSection<Content>, atSectionIndex sectionIndex: Int, for type: ResultsChangeType) {
        events.append(.section(name: section.name, index: sectionIndex, type: type))
        kindsSeen.insert("section \(type)")
    }

    func controller(_ controller: FetchedResultsController<Content>, didChange object: Content, at indexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {
        events.append(.object(object, old: indexPath, type: type, new: newIndexPath))
        kindsSeen.insert("\(type)")
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<Content>) {
        events.append(.didChange)
    }

    func controller(_ controller: FetchedResultsController<Content>, didChangeContentWith difference: CollectionDifference<Content>) {
        events.append(.difference(difference))
    }

    func controller(_ controller: FetchedResultsController<Content>, didFailWith error: ObjectGraphError) {
        events.append(.failure(error))
    }
}

/// A sectioned copy of a controller's results, kept up to date only from the delegate's index
/// paths, the way a table view applies a batch of updates.
struct SectionedReplica: Equatable {
    struct Section: Equatable {
        var name: String
        var objects: [Content]
    }

    var sections: [Section]

    init(_ sections: [ResultsSection<Content>]) {
        self.sections = sections.map { Section(name: $0.name, objects: $0.objects) }
    }

    /// Applies the batches in `events`; returns what went wrong (out of order calls, an old
    /// index path that does not hold the object, a deleted section that is not empty).
    mutating func replay(_ events: [ResultsChangeRecorder.Event]) -> [String] {
        var problems: [String] = []
        var batch: [ResultsChangeRecorder.Event]?
        var sawDifference = true
        for event in events {
            switch event {
            case .willChange:
                if batch != nil { problems.append("willChange inside a batch") }
                if !sawDifference { problems.append("no difference after the previous batch") }
                batch = []
                sawDifference = false
            case .didChange:
                guard let current = batch else {
                    problems.append("didChange outside a batch")
                    continue
                }
                problems += apply(batch: current)
                batch = nil
            case .difference:
                if batch != nil || sawDifference { problems.append("difference not right after didChange") }
                sawDifference = true
            case .section, .object:
                if batch == nil { problems.append("\(event) outside a batch") }
                batch?.append(event)
            case .failure(let error):
                problems.append("failure: \(error)")
            }
        }
        if batch != nil { problems.append("a batch was not closed") }
        return problems
    }

    private mutating func apply(batch: [ResultsChangeRecorder.Event]) -> [String] {
        var problems: [String] = []
        var deletedSections: [Int] = []
        var insertedSections: [(index: Int, name: String)] = []
        var removals: [(path: IndexPath, object: Content)] = []
        var insertions: [(path: IndexPath, object: Content)] = []
        var updates: [(old: IndexPath, new: IndexPath, object: Content)] = []
        var seenObjectChange = false
        for event in batch {
            switch event {
            case let .section(name, index, type):
                if seenObjectChange { problems.append("section change after an object change") }
                switch type {
                case .delete: deletedSections.append(index)
                case .insert: insertedSections.append((index, name))
                default: problems.append("section change of type \(type)")
                }
            case let .object(object, old, type, new):
                seenObjectChange = true
                switch type {
                case .insert:
                    guard old == nil, let new else { problems.append("insert with \(String(describing: old)), \(String(describing: new))"); continue }
                    insertions.append((new, object))
                case .delete:
                    guard let old, new == nil else { problems.append("delete with \(String(describing: old)), \(String(describing: new))"); continue }
                    removals.append((old, object))
                case .move, .update:
                    guard let old, let new else { problems.append("\(type) without both index paths"); continue }
                    removals.append((old, object))
                    insertions.append((new, object))
                    if type == .update { updates.append((old, new, object)) }
                }
            default:
                problems.append("\(event) inside a batch")
            }
        }
        for deleted in deletedSections where sections.indices.contains(deleted) && insertedSections.contains(where: { $0.name == sections[deleted].name }) {
            problems.append("section \(sections[deleted].name) is deleted and inserted in one batch")
        }
        // A table view reloads an updated row where it was: its section must stay.
        var updatedSectionNames: [String?] = []
        for update in updates {
            let section = update.old[0]
            if deletedSections.contains(section) {
                problems.append("\(update.object.name) is updated in section \(section), which is deleted")
            }
            updatedSectionNames.append(sections.indices.contains(section) ? sections[section].name : nil)
        }
        for removal in removals.sorted(by: { $0.path > $1.path }) {
            let (section, item) = (removal.path[0], removal.path[1])
            guard sections.indices.contains(section), sections[section].objects.indices.contains(item),
                  sections[section].objects[item] === removal.object else {
                problems.append("old index path \(removal.path) does not hold \(removal.object.name)")
                return problems
            }
            sections[section].objects.remove(at: item)
        }
        for index in deletedSections.sorted(by: >) {
            guard sections.indices.contains(index), sections[index].objects.isEmpty else {
                problems.append("deleted section \(index) is not an empty section")
                return problems
            }
            sections.remove(at: index)
        }
        for inserted in insertedSections.sorted(by: { $0.index < $1.index }) {
            guard inserted.index <= sections.count else {
                problems.append("inserted section \(inserted.index) is out of range")
                return problems
            }
            sections.insert(Section(name: inserted.name, objects: []), at: inserted.index)
        }
        for insertion in insertions.sorted(by: { $0.path < $1.path }) {
            let (section, item) = (insertion.path[0], insertion.path[1])
            guard sections.indices.contains(section), item <= sections[section].objects.count else {
                problems.append("new index path \(insertion.path) is out of range")
                return problems
            }
            sections[section].objects.insert(insertion.object, at: item)
        }
        for (update, oldName) in zip(updates, updatedSectionNames) where sections[update.new[0]].name != oldName {
            problems.append("\(update.object.name) is updated but changed section")
        }
        return problems
    }
}
