import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// A relationship with no inverse, which a refreshing key path cannot walk back.
private final class Folder: ManagedObject {
    @Attribute var name: String = ""
}

private final class Note: ManagedObject {
    @Attribute var title: String = ""
    @Relationship var folder: Folder?
}

@Suite("relationship key paths for refreshing")
struct RelationshipRefreshingTests {
    /// A controller of every content by name, refreshed through `paths`, with a recorder.
    static func controller(
        _ view: ManagedObjectContext, paths: Set<String>, recorder: ResultsChangeRecorder
    ) throws -> FetchedResultsController<Content> {
        var request = FetchRequest<Content>(sortBy: [SortDescriptor(\.name)])
        request.relationshipKeyPathsForRefreshing = paths
        return try view.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: request, context: view)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
    }

    /// The names of the objects reported as updated, sorted; any other kind of change or a
    /// second batch is recorded as an issue.
    static func updatedNames(_ events: [ResultsChangeRecorder.Event], sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        var names: [String] = []
        var batches = 0
        for event in events {
            switch event {
            case .willChange: batches += 1
            case let .object(object, old, .update, new):
                #expect(old != nil && old == new, "an update in place keeps its index path", sourceLocation: sourceLocation)
                names.append(object.name)
            case .object, .section, .failure:
                Issue.record("unexpected \(event)", sourceLocation: sourceLocation)
            case .didChange, .difference: break
            }
        }
        #expect(batches <= 1, "one save is one batch", sourceLocation: sourceLocation)
        return names.sorted()
    }

    /// Runs `edit` in a new background context and saves, then lets the view context merge.
    static func saveInBackground(_ container: PersistentContainer, _ edit: (ManagedObjectContext) throws -> Void) throws {
        let background = container.newBackgroundContext()
        try background.performAndWait {
            try edit(background)
            try background.save()
        }
        container.viewContext.flush()
    }

    static func first<T: ManagedObject>(_ type: T.Type, in context: ManagedObjectContext, where predicate: Predicate<T>) throws -> T {
        try #require(try context.fetch(FetchRequest<T>(predicate: predicate)).first)
    }

    /// Inbox holds c1, c2 and the image c3; Later holds c4. Ada owns both buckets; Bob owns
    /// Archive, which holds c5. c1 is tagged swift and linux, c2 swift.
    static func saveScenario(in view: ManagedObjectContext) throws {
        try view.performAndWait {
            let ada = Owner(context: view)
            ada.name = "Ada"
            let bob = Owner(context: view)
            bob.name = "Bob"
            func bucket(_ name: String, _ owner: Owner) -> Bucket {
                let bucket = Bucket(context: view)
                bucket.name = name
                bucket.owner = owner
                return bucket
            }
            let inbox = bucket("Inbox", ada)
            let later = bucket("Later", ada)
            let archive = bucket("Archive", bob)
            let swift = Tag(context: view)
            swift.title = "swift"
            let linux = Tag(context: view)
            linux.title = "linux"
            for (name, bucket) in [("c1", inbox), ("c2", inbox), ("c3", inbox), ("c4", later), ("c5", archive)] {
                let content = name == "c3" ? ImageContent(context: view) : Content(context: view)
                content.name = name
                content.bucket = bucket
                if name == "c1" { content.tags = [swift, linux] }
                if name == "c2" { content.tags = [swift] }
            }
            try view.save()
        }
    }

    @Test(
        "renaming a bucket in a background context reports each of its contents as updated once, sub-entities included",
        arguments: StoreFlavor.allCases, [false, true])
    func bucketRename(flavor: StoreFlavor, viewHoldsBucket: Bool) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try Self.saveScenario(in: view)
        let heldBucket = try viewHoldsBucket ? view.performAndWait { try Self.first(Bucket.self, in: view, where: #Predicate { $0.name == "Inbox" }) } : nil
        let recorder = ResultsChangeRecorder()
        let controller = try Self.controller(view, paths: ["bucket.name"], recorder: recorder)
        let before = view.performAndWait { controller.fetchedObjects }

        try Self.saveInBackground(container) { background in
            try Self.first(Bucket.self, in: background, where: #Predicate { $0.name == "Inbox" }).name = "Inbox (renamed)"
        }
        #expect(Self.updatedNames(recorder.takeEvents()) == ["c1", "c2", "c3"])
        view.performAndWait {
            #expect(controller.fetchedObjects == before, "the same objects in the same order")
            #expect(controller.fetchedObjects.prefix(3).allSatisfy { $0.bucket?.name == "Inbox (renamed)" })
        }
        withExtendedLifetime(heldBucket) {}
    }

    @Test("without the key path a bucket rename reports nothing, as Core Data does")
    func withoutKeyPath() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try Self.saveScenario(in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.controller(view, paths: [], recorder: recorder)
        try Self.saveInBackground(container) { background in
            try Self.first(Bucket.self, in: background, where: #Predicate { $0.name == "Inbox" }).name = "Elsewhere"
        }
        #expect(recorder.takeEvents().isEmpty)
        withExtendedLifetime(controller) {}
    }

    @Test("an unsaved rename in the view context is reported too")
    func localEdit() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try Self.saveScenario(in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.controller(view, paths: ["bucket.name"], recorder: recorder)
        try view.performAndWait {
            try Self.first(Bucket.self, in: view, where: #Predicate { $0.name == "Later" }).name = "Someday"
        }
        #expect(Self.updatedNames(recorder.takeEvents()) == ["c4"])
        withExtendedLifetime(controller) {}
    }

    @Test("renaming a tag reports every content that has it, once", arguments: StoreFlavor.allCases)
    func toMany(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try Self.saveScenario(in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.controller(view, paths: ["tags.title"], recorder: recorder)

        try Self.saveInBackground(container) { background in
            try Self.first(Tag.self, in: background, where: #Predicate { $0.title == "swift" }).title = "Swift"
        }
        #expect(Self.updatedNames(recorder.takeEvents()) == ["c1", "c2"])

        try Self.saveInBackground(container) { background in
            try Self.first(Tag.self, in: background, where: #Predicate { $0.title == "Swift" }).title = "swift 6"
            try Self.first(Tag.self, in: background, where: #Predicate { $0.title == "linux" }).title = "Linux"
        }
        #expect(Self.updatedNames(recorder.takeEvents()) == ["c1", "c2"], "c1 has both tags and is reported once")
        withExtendedLifetime(controller) {}
    }

    @Test("over two hops: renaming an owner reports the contents of all its buckets; giving a bucket another owner reports its contents", arguments: StoreFlavor.allCases)
    func multiHop(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try Self.saveScenario(in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.controller(view, paths: ["bucket.owner.name"], recorder: recorder)

        try Self.saveInBackground(container) { background in
            try Self.first(Owner.self, in: background, where: #Predicate { $0.name == "Ada" }).name = "Ada L."
        }
        #expect(Self.updatedNames(recorder.takeEvents()) == ["c1", "c2", "c3", "c4"])

        try Self.saveInBackground(container) { background in
            let archive = try Self.first(Bucket.self, in: background, where: #Predicate { $0.name == "Archive" })
            archive.owner = try Self.first(Owner.self, in: background, where: #Predicate { $0.name == "Ada L." })
        }
        #expect(Self.updatedNames(recorder.takeEvents()) == ["c5"])

        try Self.saveInBackground(container) { background in
            try Self.first(Bucket.self, in: background, where: #Predicate { $0.name == "Inbox" }).name = "not on the path"
        }
        #expect(recorder.takeEvents().isEmpty, "the bucket's own name is not listed")
        view.performAndWait { #expect(controller.fetchedObjects.map { $0.bucket?.owner?.name } == ["Ada L.", "Ada L.", "Ada L.", "Ada L.", "Ada L."]) }
    }

    @Test("a related object of a sub-entity counts, and so does a property only the sub-entity has", arguments: StoreFlavor.allCases)
    func subentitiesOfTheRelatedEntity(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        try view.performAndWait {
            let photos = Tag(context: view)
            photos.title = "photos"
            let plain = Tag(context: view)
            plain.title = "plain"
            let image = ImageContent(context: view)
            image.name = "image"
            image.tags = [photos]
            let text = Content(context: view)
            text.name = "text"
            text.tags = [plain]
            try view.save()
        }
        var request = FetchRequest<Tag>(sortBy: [SortDescriptor(\.title)])
        request.relationshipKeyPathsForRefreshing = ["contents.name", "contents.pixelWidth"]
        let recorder = TagUpdateRecorder()
        let controller = try view.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: request, context: view)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        try Self.saveInBackground(container) { background in
            try Self.first(ImageContent.self, in: background, where: #Predicate { $0.name == "image" }).pixelWidth = 640
        }
        try Self.saveInBackground(container) { background in
            try Self.first(Content.self, in: background, where: #Predicate { $0.name == "image" }).name = "picture"
        }
        try Self.saveInBackground(container) { background in
            try Self.first(Content.self, in: background, where: #Predicate { $0.name == "text" }).name = "prose"
        }
        #expect(recorder.batches == [["photos"], ["photos"], ["plain"]])
        withExtendedLifetime(controller) {}
    }

    @Test("several paths that reach one object in one save report it once")
    func noDuplicates() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try Self.saveScenario(in: view)
        let recorder = ResultsChangeRecorder()
        let controller = try Self.controller(view, paths: ["bucket.name", "bucket.owner.name", "tags.title"], recorder: recorder)
        try Self.saveInBackground(container) { background in
            try Self.first(Bucket.self, in: background, where: #Predicate { $0.name == "Inbox" }).name = "In"
            try Self.first(Owner.self, in: background, where: #Predicate { $0.name == "Ada" }).name = "Ada L."
            try Self.first(Tag.self, in: background, where: #Predicate { $0.title == "swift" }).title = "Swift"
            try Self.first(Content.self, in: background, where: #Predicate { $0.name == "c1" }).rank = 7
        }
        #expect(Self.updatedNames(recorder.takeEvents()) == ["c1", "c2", "c3", "c4"])
        withExtendedLifetime(controller) {}
    }

    @Test(
        "a path that is not usable is an error naming the path and the entity",
        arguments: [
            ("bucket.colour", "Bucket has no property 'colour'"),
            ("folder.name", "Content has no property 'folder'"),
            ("name", "does not go through a relationship"),
            ("name.count", "Content.name is not a relationship"),
            ("bucket.owner.age", "Owner has no property 'age'"),
        ])
    func invalidPaths(path: String, reason: String) throws {
        let container = try TestModel.container()
        let view = container.viewContext
        var request = FetchRequest<Content>(sortBy: [SortDescriptor(\.name)])
        request.relationshipKeyPathsForRefreshing = [path]
        view.performAndWait { () -> Void in
            let error = #expect(throws: ObjectGraphError.self) {
                _ = try FetchedResultsController(fetchRequest: request, context: view)
            }
            guard case let .invalidRefreshingKeyPath(thrownPath, entity, thrownReason)? = error else {
                Issue.record("expected invalidRefreshingKeyPath, got \(String(describing: error))")
                return
            }
            #expect(thrownPath == path && entity == "Content")
            #expect(thrownReason.contains(reason), "\(thrownReason)")
            #expect(error!.description.contains("'\(path)'") && error!.description.contains("Content"))
        }
    }

    @Test("a relationship without an inverse cannot be walked back, and says so")
    func noInverse() throws {
        let model = try ObjectModel(entities: [Folder.self, Note.self])
        let container = try PersistentContainer(model: model, store: .inMemory, viewContextQueue: DispatchQueue(label: "test.view"))
        let view = container.viewContext
        var request = FetchRequest<Note>()
        request.relationshipKeyPathsForRefreshing = ["folder.name"]
        view.performAndWait { () -> Void in
            let error = #expect(throws: ObjectGraphError.self) {
                _ = try FetchedResultsController(fetchRequest: request, context: view)
            }
            guard case let .invalidRefreshingKeyPath(path, entity, reason)? = error else {
                Issue.record("expected invalidRefreshingKeyPath, got \(String(describing: error))")
                return
            }
            #expect(path == "folder.name" && entity == "Note")
            #expect(reason.contains("Note.folder has no inverse"))
        }
    }

    @Test("every live API rejects a bad path: the single-object controller throws, the publishers fail")
    func everyAPIRejects() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let expected = ObjectGraphError.invalidRefreshingKeyPath(path: "bucket.colour", entity: "Content", reason: "Bucket has no property 'colour'")
        view.performAndWait { () -> Void in
            #expect(throws: expected) {
                _ = try SingleObjectController<Content>(predicate: #Predicate { $0.name == "x" }, context: view, relationshipKeyPathsForRefreshing: ["bucket.colour"])
            }
        }
        let objects = TestSubscriber<Content?, ObjectGraphError>()
        view.objectPublisher(matching: #Predicate<Content> { $0.name == "x" }, relationshipKeyPathsForRefreshing: ["bucket.colour"]).subscribe(objects)
        #expect(objects.completion == .failure(expected))
        var request = FetchRequest<Content>()
        request.relationshipKeyPathsForRefreshing = ["bucket.colour"]
        let changes = TestSubscriber<CollectionDifference<Content>, ObjectGraphError>()
        view.changesPublisher(for: request).subscribe(changes)
        #expect(changes.completion == .failure(expected))
        #expect(objects.values.isEmpty && changes.values.isEmpty)
    }
}

/// Collects, per batch, the titles of the tags reported as updated, and anything else reported.
private final class TagUpdateRecorder: FetchedResultsControllerDelegate {
    private(set) var batches: [[String]] = []

    func controllerWillChangeContent(_ controller: FetchedResultsController<Tag>) {
        batches.append([])
    }

    func controller(_ controller: FetchedResultsController<Tag>, didChange object: Tag, at indexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {
        batches[batches.count - 1].append(type == .update ? object.title : "\(type) \(object.title)")
    }
}
