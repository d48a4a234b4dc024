import Foundation
import ObjectGraph
import Testing

/// A class that is not in the test model.
private final class Stranger: ManagedObject {
    @Attribute var name: String = ""
}

@Suite("fetched-results controller")
struct FetchedResultsControllerTests {
    /// Sectioned by name, which is also the first sort key; rank orders within a section.
    static let byNameThenRank = FetchRequest<Content>(sortBy: [SortDescriptor(\.name), SortDescriptor(\.rank)])

    /// Saves contents named and ranked as given, in the view context.
    @discardableResult
    static func save(_ rows: [(name: String, rank: Int)], in view: ManagedObjectContext) throws -> [Content] {
        try view.performAndWait {
            let contents = rows.map { row in
                let content = Content(context: view)
                content.name = row.name
                content.rank = row.rank
                return content
            }
            try view.save()
            return contents
        }
    }

    static func sectionedController(_ view: ManagedObjectContext, recorder: ResultsChangeRecorder) throws -> FetchedResultsController<Content> {
        try view.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: byNameThenRank, context: view, sectionNameKeyPath: \.name)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
    }

    @Test("performFetch fetches the matching objects in order, and sections group them by the section key", arguments: StoreFlavor.allCases)
    func fetchAndSections(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let saved = try Self.save([("b", 1), ("a", 0), ("b", 0), ("c", 2), ("a", 1)], in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.sectionedController(view, recorder: recorder)
        view.performAndWait {
            #expect(controller.fetchedObjects.map { "\($0.name)\($0.rank)" } == ["a0", "a1", "b0", "b1", "c2"])
            #expect(controller.sections.map(\.name) == ["a", "b", "c"])
            #expect(controller.sections.map(\.count) == [2, 2, 1])
            #expect(controller.sections.map { $0.objects.map(\.rank) } == [[0, 1], [0, 1], [2]])
            for (sectionIndex, section) in controller.sections.enumerated() {
                for (item, object) in section.objects.enumerated() {
                    let path = IndexPath(indexes: [sectionIndex, item])
                    #expect(controller.object(at: path) === object)
                    #expect(controller.indexPath(for: object) == path)
                }
            }
            #expect(Set(controller.fetchedObjects) == Set(saved))
        }
        #expect(recorder.events.isEmpty, "performFetch tells the delegate nothing")
    }

    @Test("without a section key there is one unnamed section holding every result")
    func unsectioned() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try Self.save([("b", 0), ("a", 0)], in: view)
        try view.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: Self.byNameThenRank, context: view)
            #expect(controller.fetchedObjects.isEmpty, "nothing is fetched before performFetch")
            try controller.performFetch()
            #expect(controller.sections.count == 1)
            #expect(controller.sections[0].name == "")
            #expect(controller.sections[0].objects == controller.fetchedObjects)
            #expect(controller.object(at: IndexPath(indexes: [0, 1])).name == "b")
            #expect(controller.indexPath(for: controller.fetchedObjects[0]) == IndexPath(indexes: [0, 0]))
        }
    }

    @Test("a second performFetch fetches afresh and still reports each change once")
    func performFetchTwice() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try Self.save([("a", 0)], in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.sectionedController(view, recorder: recorder)
        try view.performAndWait { try controller.performFetch() }
        try Self.save([("b", 0)], in: view)
        Self.expectBatch(recorder.takeEvents(), sections: ["section insert b at 1"], objects: ["insert b - → [1, 0]"], differenceCount: 1)
        view.performAndWait { #expect(controller.fetchedObjects.map(\.name) == ["a", "b"]) }
    }

    @Test("an object outside the results has no index path")
    func indexPathOfStranger() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try Self.save([("a", 0)], in: view)
        try view.performAndWait {
            let odd = Content(context: view)
            odd.name = "odd"
            try view.save()
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Content>(predicate: #Predicate { $0.name == "a" }, sortBy: [SortDescriptor(\.name)]),
                context: view)
            try controller.performFetch()
            #expect(controller.indexPath(for: odd) == nil)
            #expect(controller.fetchedObjects.map(\.name) == ["a"])
        }
    }

    @Test("an insert that starts a section: willChange, the section insert, the object insert, didChange, in that order", arguments: StoreFlavor.allCases)
    func insertNewSection(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try Self.save([("a", 0), ("c", 0)], in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.sectionedController(view, recorder: recorder)
        let inserted = try Self.save([("b", 0)], in: view)[0]
        let events = recorder.takeEvents()
        Self.expectBatch(events, sections: ["section insert b at 1"], objects: ["insert b - → [1, 0]"], differenceCount: 1)
        if case let .object(object, _, _, _) = events[2] { #expect(object === inserted) }
        view.performAndWait { #expect(controller.sections.map(\.name) == ["a", "b", "c"]) }
    }

    @Test("deleting the last object of a section reports the section delete and the object delete at its old index path")
    func deleteLastOfSection() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let saved = try Self.save([("a", 0), ("b", 0), ("b", 1), ("c", 0)], in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.sectionedController(view, recorder: recorder)
        try view.performAndWait {
            view.delete(saved[0])
            view.delete(saved[2])
            try view.save()
        }
        Self.expectBatch(recorder.takeEvents(), sections: ["section delete a at 0"], objects: ["delete a [0, 0] → -", "delete b [1, 1] → -"], differenceCount: 2)
        view.performAndWait {
            #expect(controller.sections.map(\.name) == ["b", "c"])
            #expect(controller.fetchedObjects == [saved[1], saved[3]])
        }
    }

    @Test("a change of the sort key that reorders is a move with the old and the new index path; one that does not is an update")
    func moveAndUpdate() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let saved = try Self.save([("a", 0), ("a", 1), ("b", 0)], in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.sectionedController(view, recorder: recorder)

        try view.performAndWait {
            saved[0].rank = 5
            try view.save()
        }
        Self.expectBatch(recorder.takeEvents(), objects: ["move a [0, 0] → [0, 1]"], differenceCount: 2)

        try view.performAndWait {
            saved[2].isEven = true
            try view.save()
        }
        Self.expectBatch(recorder.takeEvents(), objects: ["update b [1, 0] → [1, 0]"], differenceCount: 2)

        try view.performAndWait {
            saved[1].name = "c"
            try view.save()
        }
        Self.expectBatch(recorder.takeEvents(), sections: ["section insert c at 2"], objects: ["move c [0, 0] → [2, 0]"], differenceCount: 2)

        try view.performAndWait {
            saved[0].name = "c"
            try view.save()
        }
        Self.expectBatch(recorder.takeEvents(), sections: ["section delete a at 0"], objects: ["move c [0, 0] → [1, 1]"], differenceCount: 2)
        view.performAndWait {
            #expect(controller.sections.map(\.name) == ["b", "c"])
            #expect(controller.sections[1].objects == [saved[1], saved[0]])
        }
    }

    @Test("an object that changes section without changing its flat place is a move, not an update")
    func sectionChangeInPlace() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let saved = try Self.save([("a", 0), ("b", 0)], in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.sectionedController(view, recorder: recorder)
        var replica = view.performAndWait { SectionedReplica(controller.sections) }
        try view.performAndWait {
            saved[0].name = "aa"
            try view.save()
        }
        let events = recorder.takeEvents()
        Self.expectBatch(events, sections: ["section delete a at 0", "section insert aa at 0"], objects: ["move aa [0, 0] → [0, 0]"], differenceCount: 2)
        #expect(replica.replay(events).isEmpty)
        view.performAndWait { #expect(replica == SectionedReplica(controller.sections)) }
    }

    @Test("an object that stops or starts matching the predicate is deleted or inserted")
    func predicateFlips() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let saved = try Self.save([("a", 0), ("b", 0)], in: view)
        try view.performAndWait {
            saved[0].isEven = true
            try view.save()
        }
        let recorder = ResultsChangeRecorder()
        let controller = try view.performAndWait {
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Content>(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.name)]),
                context: view)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        try view.performAndWait {
            saved[0].isEven = false
            saved[1].isEven = true
            try view.save()
        }
        Self.expectBatch(recorder.takeEvents(), objects: ["delete a [0, 0] → -", "insert b - → [0, 0]"], differenceCount: 2)
        view.performAndWait { #expect(controller.fetchedObjects == [saved[1]]) }
    }

    @Test("a predicate that fails on a change tells the delegate, and the object stays where the results had it")
    func predicateFailsLater() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let recorder = ResultsChangeRecorder()
        try view.performAndWait {
            for name in ["a", "b"] { _ = try Content.savedInBucketX(named: name, in: view) }
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Content>(predicate: Content.inBucketX, sortBy: [SortDescriptor(\.name)]),
                context: view)
            controller.delegate = recorder
            try controller.performFetch()
            let first = controller.fetchedObjects[0]
            first.bucket = nil
            view.processPendingChanges()
            #expect(controller.fetchedObjects.map(\.name) == ["a", "b"])
            let events = recorder.takeEvents()
            guard case .failure(.predicateFailed(entity: "Content", message: _))? = events.first else {
                Issue.record("expected the failure first, got \(events)")
                return
            }
            Self.expectBatch(Array(events.dropFirst()), objects: ["update a [0, 0] → [0, 0]"], differenceCount: 2)
        }
    }

    @Test("a rollback puts the results back as they were saved")
    func rollback() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let saved = try Self.save([("a", 0), ("b", 0), ("c", 0)], in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.sectionedController(view, recorder: recorder)
        var replica = view.performAndWait { SectionedReplica(controller.sections) }
        view.performAndWait {
            saved[0].name = "d"
            view.delete(saved[1])
            Content(context: view).name = "e"
        }
        view.performAndWait {
            #expect(controller.fetchedObjects.map(\.name) == ["c", "d", "e"])
            view.rollback()
            #expect(controller.fetchedObjects == saved)
            #expect(controller.sections.map(\.name) == ["a", "b", "c"])
        }
        let events = recorder.takeEvents()
        #expect(events.filter { if case .willChange = $0 { true } else { false } }.count == 2)
        #expect(replica.replay(events).isEmpty)
        view.performAndWait { #expect(replica == SectionedReplica(controller.sections)) }
    }

    @Test("sectioning by a key that is not the first sort key is an error that says so")
    func sectionKeyNotSorted() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        for request in [FetchRequest<Content>(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.name)]), FetchRequest<Content>()] {
            try view.performAndWait {
                let controller = try FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: \.name)
                #expect(throws: ObjectGraphError.sectionKeyNotSorted(entity: "Content")) { try controller.performFetch() }
            }
        }
        #expect(ObjectGraphError.sectionKeyNotSorted(entity: "Content").description.contains("sort by the section key first"))
    }

    @Test("a class outside the model is an unknown-entity error naming it")
    func unknownEntity() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        view.performAndWait { () -> Void in
            #expect(throws: ObjectGraphError.unknownEntity("Stranger")) {
                _ = try FetchedResultsController(fetchRequest: FetchRequest<Stranger>(), context: view)
            }
        }
    }

    @Test(
        "after every random step the results equal a fresh sorted fetch, and the difference and the index paths replay onto the previous results",
        arguments: StoreFlavor.allCases)
    func randomSteps(flavor: StoreFlavor) throws {
        var kindsSeen: Set<String> = []
        for seed in UInt64(1)...50 {
            let container = try flavor.makeContainer()
            let editor = try RandomStoreEditor(container: container, seed: seed)
            let view = editor.view
            var request = FetchRequest<Content>(predicate: #Predicate { $0.isEven }, sortBy: [SortDescriptor(\.name), SortDescriptor(\.rank)])
            request.relationshipKeyPathsForRefreshing = ["bucket.name"]
            let recorder = ResultsChangeRecorder()
            let controller = try view.performAndWait {
                let controller = try FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: \.name)
                controller.delegate = recorder
                try controller.performFetch()
                return controller
            }
            var previous = view.performAndWait { controller.fetchedObjects }
            var replica = view.performAndWait { SectionedReplica(controller.sections) }
            for stepIndex in 0..<30 {
                try editor.step()
                let context = "seed \(seed), step \(stepIndex): \(editor.lastStep)"
                let events = recorder.takeEvents()
                try view.performAndWait {
                    let fresh = try view.totallyOrderedFetch(request)
                    #expect(controller.fetchedObjects == fresh, "\(context)")

                    var applied = previous
                    for case let .difference(difference) in events {
                        guard let next = applied.applying(difference) else {
                            Issue.record("a difference does not apply to the previous results; \(context)")
                            break
                        }
                        applied = next
                    }
                    #expect(applied == controller.fetchedObjects, "\(context)")

                    let problems = replica.replay(events)
                    #expect(problems.isEmpty, "\(problems); \(context)")
                    #expect(replica == SectionedReplica(controller.sections), "\(context)")
                    #expect(controller.sections.map(\.name) == fresh.map(\.name).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }, "\(context)")
                    for object in fresh {
                        if let path = controller.indexPath(for: object) {
                            #expect(controller.object(at: path) === object, "\(context)")
                        } else {
                            Issue.record("no index path for a fetched object; \(context)")
                        }
                    }
                    previous = controller.fetchedObjects
                    replica = SectionedReplica(controller.sections)
                }
            }
            kindsSeen.formUnion(recorder.kindsSeen)
        }
        #expect(kindsSeen == ["insert", "delete", "move", "update", "section insert", "section delete"], "the random steps reach every kind of change")
    }

    /// Checks one batch: willChange, the section changes in order, the object changes in any
    /// order (they concern different objects), didChange, then the flat difference.
    static func expectBatch(
        _ events: [ResultsChangeRecorder.Event], sections: [String] = [], objects: Set<String>, differenceCount: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let described = events.map(\.description)
        let objectEnd = 1 + sections.count + objects.count
        guard described.count == objectEnd + 2 else {
            Issue.record("unexpected batch \(described)", sourceLocation: sourceLocation)
            return
        }
        #expect(described[0] == "willChange", sourceLocation: sourceLocation)
        #expect(Array(described[1..<(1 + sections.count)]) == sections, sourceLocation: sourceLocation)
        #expect(Set(described[(1 + sections.count)..<objectEnd]) == objects, sourceLocation: sourceLocation)
        #expect(Array(described[objectEnd...]) == ["didChange", "difference of \(differenceCount)"], sourceLocation: sourceLocation)
    }
}
