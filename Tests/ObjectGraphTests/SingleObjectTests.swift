import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

@Suite("single object")
struct SingleObjectTests {
    typealias Objects = TestSubscriber<Content?, ObjectGraphError>

    static let namedAda = #Predicate<Content> { $0.name == "ada" }

    /// What a single-object controller reported, as names (`nil` for no object) and errors.
    final class Reports {
        var names: [String?] = []
        var errors: [ObjectGraphError] = []
    }

    /// A started controller of the content named "ada" in the view context.
    static func startController(_ view: ManagedObjectContext, reports: Reports) throws -> SingleObjectController<Content> {
        try view.performAndWait {
            let controller = try SingleObjectController(predicate: namedAda, context: view)
            controller.onChange = { reports.names.append($0?.name) }
            controller.onError = { reports.errors.append($0) }
            try controller.performFetch()
            return controller
        }
    }

    /// Runs `edit` in a background context, saves, and lets the view context merge.
    static func inBackground<T>(_ background: ManagedObjectContext, _ view: ManagedObjectContext, _ edit: (ManagedObjectContext) throws -> T) throws -> T {
        let result = try background.performAndWait {
            let result = try edit(background)
            try background.save()
            return result
        }
        view.flush()
        return result
    }

    static func insertContent(named name: String, in context: ManagedObjectContext) -> ObjectID {
        let content = Content(context: context)
        content.name = name
        return content.objectID!
    }

    static func content(_ id: ObjectID, in context: ManagedObjectContext) throws -> Content {
        try #require(context.object(with: id, as: Content.self))
    }

    // MARK: SingleObjectController

    @Test("nothing matches at first; the object a background context inserts is then reported", arguments: StoreFlavor.allCases)
    func insertedLater(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let reports = Reports()
        let controller = try Self.startController(view, reports: reports)
        view.performAndWait { #expect(controller.object == nil) }

        let id = try Self.inBackground(background, view) { Self.insertContent(named: "ada", in: $0) }
        #expect(reports.names == ["ada"])
        view.performAndWait {
            #expect(controller.object?.objectID == id)
            #expect(controller.object?.managedObjectContext === view)
        }
    }

    @Test("an object saved earlier that is later updated to match is reported", arguments: StoreFlavor.allCases)
    func updatedToMatch(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let id = try Self.inBackground(background, view) { Self.insertContent(named: "bob", in: $0) }
        let reports = Reports()
        let controller = try Self.startController(view, reports: reports)
        try Self.inBackground(background, view) { try Self.content(id, in: $0).name = "ada" }
        #expect(reports.names == ["ada"])
        view.performAndWait { #expect(controller.object?.objectID == id) }
    }

    @Test("an update of the object is reported; a delete, or a change that stops it matching, reports nil", arguments: StoreFlavor.allCases)
    func updatesAndDeletes(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let id = try Self.inBackground(background, view) { Self.insertContent(named: "ada", in: $0) }
        let reports = Reports()
        let controller = try Self.startController(view, reports: reports)
        view.performAndWait { #expect(controller.object?.objectID == id) }

        try Self.inBackground(background, view) { try Self.content(id, in: $0).rank = 3 }
        view.performAndWait { #expect(controller.object?.rank == 3) }
        try Self.inBackground(background, view) { try Self.content(id, in: $0).name = "ada lovelace" }
        view.performAndWait { #expect(controller.object == nil) }
        try Self.inBackground(background, view) { try Self.content(id, in: $0).name = "ada" }
        try Self.inBackground(background, view) { $0.delete(try Self.content(id, in: $0)) }
        #expect(reports.names == ["ada", nil, "ada", nil])
        #expect(reports.errors.isEmpty)
        view.performAndWait { #expect(controller.object == nil) }
    }

    @Test("more than one match is an error: thrown by performFetch, passed to onError later", arguments: StoreFlavor.allCases)
    func multipleMatches(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let reports = Reports()
        let controller = try Self.startController(view, reports: reports)
        try Self.inBackground(background, view) { _ = Self.insertContent(named: "ada", in: $0) }
        try Self.inBackground(background, view) { _ = Self.insertContent(named: "ada", in: $0) }
        #expect(reports.errors == [.multipleMatches(entity: "Content", count: 2)])
        withExtendedLifetime(controller) {}

        view.performAndWait { () -> Void in
            let late = try? SingleObjectController(predicate: Self.namedAda, context: view)
            #expect(throws: ObjectGraphError.multipleMatches(entity: "Content", count: 2)) { try late?.performFetch() }
        }
    }

    // MARK: objectPublisher

    @Test("the publisher's first value is nil when nothing matches, then the object once a background save makes one match", arguments: StoreFlavor.allCases)
    func publisherFirstNilThenObject(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let bob = try Self.inBackground(background, view) { Self.insertContent(named: "bob", in: $0) }
        let subscriber = Objects()
        view.objectPublisher(matching: Self.namedAda).subscribe(subscriber)
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.map { $0?.name } == [nil])

        try Self.inBackground(background, view) { try Self.content(bob, in: $0).name = "ada" }
        #expect(subscriber.values.count == 1, "nothing without demand")
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.map { $0?.objectID } == [nil, bob])
        #expect(subscriber.values.last??.managedObjectContext === view)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("with demand, the publisher sends the inserted object, its updates, and nil on delete")
    func publisherUpdatesAndDelete() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let subscriber = Objects(onValue: { _, object in
            #expect(view.isOnQueue, "delivered on the view queue")
            _ = object?.rank  // readable there
            return .none
        })
        view.objectPublisher(matching: Self.namedAda).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        let id = try Self.inBackground(background, view) { Self.insertContent(named: "ada", in: $0) }
        try Self.inBackground(background, view) { try Self.content(id, in: $0).rank = 9 }
        try Self.inBackground(background, view) { $0.delete(try Self.content(id, in: $0)) }
        #expect(subscriber.values.map { $0?.objectID } == [nil, id, id, nil])
        #expect(subscriber.completion == nil)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("more than one match ends the publisher with a failure, at once or later")
    func publisherMultipleMatches() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        try Self.inBackground(background, view) { _ = Self.insertContent(named: "ada", in: $0) }

        let later = Objects()
        view.objectPublisher(matching: Self.namedAda).subscribe(later)
        view.performAndWait { later.request(.unlimited) }
        #expect(later.values.count == 1)
        try Self.inBackground(background, view) { _ = Self.insertContent(named: "ada", in: $0) }
        #expect(later.completion == .failure(.multipleMatches(entity: "Content", count: 2)))

        let atOnce = Objects()
        view.objectPublisher(matching: Self.namedAda).subscribe(atOnce)
        #expect(atOnce.completion == .failure(.multipleMatches(entity: "Content", count: 2)))
        #expect(atOnce.values.isEmpty)
        try Self.inBackground(background, view) { _ = Self.insertContent(named: "ada", in: $0) }
        #expect(later.violations.isEmpty && atOnce.violations.isEmpty)
    }

    @Test("a subscriber without demand loses nothing: on request it receives the latest state")
    func latestStateKept() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let background = container.newBackgroundContext()

        let late = Objects()
        view.objectPublisher(matching: Self.namedAda).subscribe(late)
        let id = try Self.inBackground(background, view) { Self.insertContent(named: "ada", in: $0) }
        try Self.inBackground(background, view) { try Self.content(id, in: $0).rank = 5 }
        view.performAndWait { late.request(.max(1)) }
        #expect(late.values.map { $0?.rank } == [5], "the first value is the current object, not the nil of the start")

        let subscriber = Objects()
        view.objectPublisher(matching: Self.namedAda).subscribe(subscriber)
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.map { $0?.objectID } == [id])
        try Self.inBackground(background, view) { try Self.content(id, in: $0).rank = 6 }
        try Self.inBackground(background, view) { $0.delete(try Self.content(id, in: $0)) }
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.count == 2)
        #expect(subscriber.values.last.map { $0 == nil } == true, "the final state, no object, is not lost")
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.count == 2, "nothing new, nothing sent")
        #expect(subscriber.violations.isEmpty && late.violations.isEmpty)
    }

    @Test("a change of a listed related property delivers the object again")
    func relatedChange() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let bucketID = try Self.inBackground(background, view) { context in
            let bucket = Bucket(context: context)
            bucket.name = "Inbox"
            let content = Content(context: context)
            content.name = "ada"
            content.bucket = bucket
            return bucket.objectID!
        }
        let subscriber = Objects()
        view.objectPublisher(matching: Self.namedAda, relationshipKeyPathsForRefreshing: ["bucket.name"]).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        try Self.inBackground(background, view) { try #require($0.object(with: bucketID, as: Bucket.self)).name = "Archive" }
        // Relationships are read on the context's queue: off it, the read is a race (and stops
        // the process in debug builds).
        #expect(view.performAndWait { subscriber.values.map { $0?.bucket?.name } } == ["Archive", "Archive"])
        let reports = Reports()
        let controller = try view.performAndWait {
            let controller = try SingleObjectController(predicate: Self.namedAda, context: view, relationshipKeyPathsForRefreshing: ["bucket.name"])
            controller.onChange = { reports.names.append($0?.bucket?.name) }
            try controller.performFetch()
            return controller
        }
        try Self.inBackground(background, view) { try #require($0.object(with: bucketID, as: Bucket.self)).name = "Attic" }
        #expect(reports.names == ["Attic"])
        #expect(subscriber.values.count == 3)
        withExtendedLifetime(controller) {}
    }

    @Test("a predicate that fails on a later change is passed to onError")
    func predicateFailsLater() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let reports = Reports()
        try view.performAndWait {
            let content = try Content.savedInBucketX(in: view)
            let controller = try SingleObjectController(predicate: Content.inBucketX, context: view)
            controller.onError = { reports.errors.append($0) }
            try controller.performFetch()
            #expect(controller.object === content)
            content.bucket = nil
            try view.save()
            #expect(controller.object === content, "the object stays the match")
        }
        guard case .predicateFailed(entity: "Content", message: _)? = reports.errors.first else {
            Issue.record("expected a predicate failure, got \(reports.errors)")
            return
        }
    }

    @Test("a predicate that fails on a later change ends the publisher with that failure")
    func publisherPredicateFailsLater() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let content = try view.performAndWait { try Content.savedInBucketX(in: view) }
        let subscriber = Objects()
        view.objectPublisher(matching: Content.inBucketX).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        #expect(subscriber.values.map { $0 === content } == [true])
        try view.performAndWait {
            content.bucket = nil
            try view.save()
        }
        guard case .failure(.predicateFailed(entity: "Content", message: _))? = subscriber.completion else {
            Issue.record("expected a predicate failure, got \(String(describing: subscriber.completion))")
            return
        }
        #expect(subscriber.values.count == 1)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a cancel from another thread while a merge waits on the view queue ends the stream quietly")
    func cancelWhileMergeQueued() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let subscriber = try subscribeThenCancelWhileMergeQueued(
            view.objectPublisher(matching: Self.namedAda), view: view, background: container.newBackgroundContext()
        ) { _ = Self.insertContent(named: "ada", in: $0) }
        #expect(subscriber.values.map { $0?.name } == [nil])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a subscriber that saves from inside receive gets the result next, once")
    func reentrantSave() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let subscriber = Objects(onValue: { _, object in
            if object == nil {
                _ = Self.insertContent(named: "ada", in: view)
                try? view.save()
            }
            return .max(1)
        })
        view.objectPublisher(matching: Self.namedAda).subscribe(subscriber)
        view.performAndWait { subscriber.request(.max(1)) }
        view.flush()
        #expect(subscriber.values.map { $0?.name } == [nil, "ada"])
        #expect(subscriber.violations.isEmpty)
    }

    @Test("objectPublisher keeps the stream rules")
    func rules() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let findings = RuleCheck.run(
            make: { view.objectPublisher(matching: Self.namedAda) },
            drive: { _ in
                try? Self.inBackground(background, view) { context in
                    if let existing = try context.fetch(FetchRequest(predicate: Self.namedAda)).first {
                        context.delete(existing)
                    } else {
                        _ = Self.insertContent(named: "ada", in: context)
                    }
                }
            })
        #expect(findings.isEmpty, "\(findings)")
    }
}
