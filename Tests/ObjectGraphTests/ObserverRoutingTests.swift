import Foundation
@testable import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// Issue #24, point 6: a batch of changes costs the live observers what concerns them, whatever
/// their number. ``LiveObserverIndex/routedPairs`` counts the (observer, changed object) pairs
/// a batch reaches: each is one evaluation of the observer's predicate.
@Suite("observer routing: many observers cost what concerns them")
struct ObserverRoutingTests {
    static let observerCount = 100

    /// A view with `count` contents named `content i` (rank i), and a single-object observer on
    /// each of the first `observed`, subscribed with unlimited demand.
    struct Setup {
        let container: PersistentContainer
        let view: ManagedObjectContext
        let background: ManagedObjectContext
        let ids: [ObjectID]
        let observers: [TestSubscriber<Content?, ObjectGraphError>]

        init(_ flavor: StoreFlavor, count: Int = 400, observed: Int = ObserverRoutingTests.observerCount) throws {
            container = try flavor.makeContainer()
            view = container.viewContext
            background = container.newBackgroundContext()
            let background = background
            ids = try background.performAndWait {
                let contents = (0..<count).map { index in
                    let content = Content(context: background)
                    content.name = "content \(index)"
                    content.rank = index
                    return content
                }
                try background.save()
                return contents.map { $0.objectID! }
            }
            view.flush()
            let view = view
            let observers = (0..<observed).map { index in
                let subscriber = TestSubscriber<Content?, ObjectGraphError>()
                let name = "content \(index)"
                view.objectPublisher(matching: #Predicate<Content> { $0.name == name }).subscribe(subscriber)
                return subscriber
            }
            view.performAndWait { for observer in observers { observer.request(.unlimited) } }
            self.observers = observers
        }

        var routedPairs: Int { view.liveObservers.routedPairs.load(ordering: .relaxed) }
        var broughtIn: Int { view.performAndWait { view.objectsBroughtIn } }

        func save(_ edit: (ManagedObjectContext) throws -> Void) throws {
            try SingleObjectTests.inBackground(background, view, edit)
        }

        func content(_ index: Int, in context: ManagedObjectContext) throws -> Content {
            try #require(context.object(with: ids[index], as: Content.self))
        }
    }

    @Test("a sibling's save of changes no observer looks for reaches no observer and brings nothing in", arguments: StoreFlavor.allCases)
    func unobservedChanges(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        for observer in setup.observers { #expect(observer.values.count == 1) }
        let (pairs, broughtIn) = (setup.routedPairs, setup.broughtIn)
        try setup.save { context in
            for index in 200..<400 { try setup.content(index, in: context).rank += 1_000 }
        }
        #expect(setup.routedPairs == pairs, "no observer looks for these objects")
        #expect(setup.broughtIn == broughtIn, "nothing is brought into the view context")
        for observer in setup.observers { #expect(observer.values.count == 1) }
    }

    @Test("one observed change reaches its observer only, however many observers there are", arguments: StoreFlavor.allCases)
    func oneObservedChange(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor)
        let pairs = setup.routedPairs
        try setup.save { context in try setup.content(42, in: context).rank = -1 }
        #expect(setup.routedPairs == pairs + 1)
        for (index, observer) in setup.observers.enumerated() {
            #expect(observer.values.count == (index == 42 ? 2 : 1))
        }
        setup.view.performAndWait { #expect(setup.observers[42].values.last??.rank == -1) }
    }

    @Test("an observer that found its object follows it by ID: renamed away it reports nil, renamed back the object", arguments: StoreFlavor.allCases)
    func heldObjectLeaves(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor, count: 20, observed: 10)
        try setup.save { context in try setup.content(3, in: context).name = "renamed" }
        #expect(setup.observers[3].values.map { $0?.objectID } == [setup.ids[3], nil])
        try setup.save { context in try setup.content(3, in: context).name = "content 3" }
        try setup.save { context in context.delete(try setup.content(3, in: context)) }
        #expect(setup.observers[3].values.map { $0?.objectID } == [setup.ids[3], nil, setup.ids[3], nil])
        for (index, observer) in setup.observers.enumerated() where index != 3 { #expect(observer.values.count == 1) }
    }

    @Test("new candidates are found by the value the predicate compares: an insert, and an unfetched object updated to match", arguments: StoreFlavor.allCases)
    func candidatesByValue(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor, count: 20, observed: 0)
        let view = setup.view
        let subscriber = TestSubscriber<Content?, ObjectGraphError>()
        view.objectPublisher(matching: #Predicate<Content> { $0.name == "ada" }).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        let pairs = setup.routedPairs
        try setup.save { context in try setup.content(7, in: context).name = "ada" }
        try setup.save { context in try setup.content(7, in: context).name = "grace" }
        try setup.save { context in Content(context: context).name = "ada" }
        try setup.save { context in try setup.content(8, in: context).rank = 99 }
        let found = subscriber.values.map { $0?.objectID }
        #expect(found.count == 4 && found[0] == nil && found[1] == setup.ids[7] && found[2] == nil)
        #expect(found.last??.entity.name == "Content" && !setup.ids.contains(found.last!!), "the inserted one")
        #expect(setup.routedPairs == pairs + 3, "the rank change of an object nobody looks for reaches nobody")
    }

    @Test("a predicate that compares nothing by equality sees every change of its entity", arguments: StoreFlavor.allCases)
    func scanningObserver(flavor: StoreFlavor) throws {
        let setup = try Setup(flavor, count: 20, observed: 0)
        let subscriber = TestSubscriber<CollectionDifference<Content>, ObjectGraphError>()
        setup.view.changesPublisher(for: FetchRequest<Content>(predicate: #Predicate { $0.name.starts(with: "a") }, sortBy: [SortDescriptor(\.rank)]))
            .subscribe(subscriber)
        setup.view.performAndWait { subscriber.request(.unlimited) }
        let pairs = setup.routedPairs
        try setup.save { context in
            for index in 0..<5 { try setup.content(index, in: context).rank += 100 }
            try setup.content(5, in: context).name = "ada"
        }
        #expect(setup.routedPairs == pairs + 6)
        #expect(subscriber.values.count == 1)
        #expect(subscriber.values.first?.insertions.count == 1)
    }

    @Test("negative zero is found by a lookup for zero, as == finds it", arguments: StoreFlavor.allCases)
    func negativeZero(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let id = try background.performAndWait {
            let value = AllTypes(context: background)
            value.double = 1
            try background.save()
            return value.objectID!
        }
        view.flush()
        let subscriber = TestSubscriber<CollectionDifference<AllTypes>, ObjectGraphError>()
        view.changesPublisher(for: FetchRequest<AllTypes>(predicate: #Predicate { $0.double == 0 })).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        try background.performAndWait {
            try #require(background.object(with: id, as: AllTypes.self)).double = -0.0
            try background.save()
        }
        view.flush()
        #expect(subscriber.values.map(\.insertions.count) == [1])
    }

    // MARK: What a predicate compares

    static func candidates<T: ManagedObject>(_ predicate: Predicate<T>) throws -> CandidateValues? {
        let container = try TestModel.container()
        return container.viewContext.performAndWait { container.viewContext.candidateValues(of: FetchRequest<T>(predicate: predicate)) }
    }

    @Test("an equality, a list, a Bool, nil and alternatives on one property are looked up; the narrowest conjunct wins")
    func candidateShapes() throws {
        let name = "ada"
        let names = ["ada", "grace"]
        #expect(try Self.candidates(#Predicate<Content> { $0.name == name })?.values == [.string("ada")])
        #expect(try Self.candidates(#Predicate<Content> { "ada" == $0.name })?.propertyName == "name")
        #expect(try Self.candidates(#Predicate<Content> { names.contains($0.name) })?.values == [.string("ada"), .string("grace")])
        #expect(try Self.candidates(#Predicate<Content> { $0.isEven })?.values == [.bool(true)])
        #expect(try Self.candidates(#Predicate<Content> { !$0.isEven })?.values == [.bool(false)])
        #expect(try Self.candidates(#Predicate<AllTypes> { $0.optionalString == nil })?.values == [.null])
        #expect(try Self.candidates(#Predicate<Content> { $0.name == "a" || $0.name == "b" })?.values == [.string("a"), .string("b")])
        #expect(try Self.candidates(#Predicate<Content> { $0.isEven && $0.rank == 3 })?.propertyName == "rank")
        #expect(try Self.candidates(#Predicate<Content> { $0.rank < 3 && $0.name == name })?.propertyName == "name")
    }

    @Test("comparisons that a lookup by value could miss stay scans")
    func candidateRefusals() throws {
        #expect(try Self.candidates(#Predicate<Content> { $0.rank < 3 }) == nil)
        #expect(try Self.candidates(#Predicate<Content> { $0.name == "a" || $0.rank == 1 }) == nil)
        #expect(try Self.candidates(#Predicate<Content> { $0.name != "a" }) == nil)
        #expect(try Self.candidates(#Predicate<Content> { $0.bucket?.name == "x" }) == nil, "a related object's value")
        let nan = Double.nan
        #expect(try Self.candidates(#Predicate<AllTypes> { $0.double == nan }) == nil, "NaN equals nothing: no value to look up")
        #expect(try Self.candidates(#Predicate<Content> { $0.name.starts(with: "a") }) == nil)
    }

    @Test("lookup keys: 0.0 and -0.0 share one, relationship collections have none")
    func lookupKeys() {
        #expect(PropertyValue.double(-0.0).lookupKey == PropertyValue.double(0.0).lookupKey)
        #expect(PropertyValue.double(-0.0).lookupKey?.hashValue == PropertyValue.double(0.0).lookupKey?.hashValue)
        #expect(PropertyValue.date(Date(timeIntervalSinceReferenceDate: -0.0)).lookupKey == .date(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(PropertyValue.objects([]).lookupKey == nil)
        #expect(PropertyValue.string("é").lookupKey == PropertyValue.string("e\u{301}").lookupKey, "canonically equivalent strings are ==")
    }
}
