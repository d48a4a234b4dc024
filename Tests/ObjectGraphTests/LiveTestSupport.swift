import Foundation
import ObjectGraph
import Streams
import StreamsTesting

/// SplitMix64: a small deterministic generator, so that a failing random sequence can be replayed
/// from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

extension ManagedObjectContext {
    /// The objects `request` matches, in the request's order made total by object ID: the order
    /// a fetched-results controller keeps. Call it on the context's queue.
    func totallyOrderedFetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        var unwindowed = request
        unwindowed.fetchLimit = nil
        unwindowed.fetchOffset = 0
        return try fetch(unwindowed).sorted { lhs, rhs in
            if request.areInIncreasingOrder(lhs, rhs) { return true }
            if request.areInIncreasingOrder(rhs, lhs) { return false }
            return lhs.objectID! < rhs.objectID!
        }
    }

    /// Runs everything already scheduled on the context's queue (merges of sibling saves,
    /// deliveries requested from other threads).
    func flush() { performAndWait {} }

    /// Runs `body` while the context's queue is held, so that whatever `body` schedules there
    /// (a merge, a delivery, a stop) waits, in order, until `body` returns.
    func whileQueueHeld(_ body: () throws -> Void) rethrows {
        let held = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        queue.async {
            running.signal()
            held.wait()
        }
        running.wait()
        defer { held.signal() }
        try body()
    }
}

/// Subscribes to `publisher` (a live publisher of `view`) with unlimited demand, then, with the
/// view queue held, saves `edit` in `background` (its merge waits on the view queue) and cancels
/// from this thread; returns the subscriber once the view queue has run the merge and the stop.
func subscribeThenCancelWhileMergeQueued<P: Publisher>(
    _ publisher: P, view: ManagedObjectContext, background: ManagedObjectContext,
    edit: (ManagedObjectContext) throws -> Void
) throws -> TestSubscriber<P.Output, P.Failure> {
    let subscriber = TestSubscriber<P.Output, P.Failure>()
    publisher.subscribe(subscriber)
    view.performAndWait { subscriber.request(.unlimited) }
    try view.whileQueueHeld {
        try background.performAndWait {
            try edit(background)
            try background.save()
        }
        subscriber.cancel()
    }
    view.flush()
    return subscriber
}

extension Content {
    /// Matches a content whose bucket is named "x"; throws for a content without a bucket.
    static let inBucketX = #Predicate<Content> { $0.bucket!.name == "x" }

    /// Saves a content named `name` in a new bucket named "x": ``inBucketX`` matches it until its
    /// bucket is taken away, and then fails. Call it on the context's queue.
    static func savedInBucketX(named name: String = "", in context: ManagedObjectContext) throws -> Content {
        let bucket = Bucket(context: context)
        bucket.name = "x"
        let content = Content(context: context)
        content.name = name
        content.bucket = bucket
        try context.save()
        return content
    }
}

/// Random edits of contents and buckets, made in a view context and in a background context of
/// one container: inserts (sub-entity included), deletes, renames and re-ranks that reorder,
/// predicate flips (`isEven`), bucket moves and bucket renames. Every background step saves; a
/// view step usually saves and sometimes leaves its edits unsaved for a later view step. After
/// each step both contexts have merged what the other saved.
final class RandomStoreEditor {
    static let contentNames = ["a", "b", "c", "d", "e"]
    static let bucketNames = ["inbox", "later", "archive", "trash"]

    let view: ManagedObjectContext
    let background: ManagedObjectContext
    private(set) var generator: SeededGenerator
    /// What the last step did, for failure messages.
    private(set) var lastStep = ""

    init(container: PersistentContainer, seed: UInt64) throws {
        view = container.viewContext
        background = container.newBackgroundContext()
        generator = SeededGenerator(seed: seed)
        view.mergePolicy = .objectWins
        background.mergePolicy = .objectWins
        try background.performAndWait {
            for name in Self.bucketNames.prefix(3) { Bucket(context: background).name = name }
            try background.save()
        }
        view.flush()
    }

    /// Makes one step: one to three edits in one of the two contexts, then (usually) a save,
    /// then lets each context merge what the other saved.
    func step() throws {
        let inBackground = Bool.random(using: &generator)
        let context = inBackground ? background : view
        let edits = Int.random(in: 1...3, using: &generator)
        let saves = inBackground || Int.random(in: 0..<5, using: &generator) > 0
        var generator = self.generator
        let described = try context.performAndWait {
            var described: [String] = []
            for _ in 0..<edits { described.append(try edit(in: context, using: &generator)) }
            if saves { try context.save() }
            return described
        }
        self.generator = generator
        lastStep = "\(inBackground ? "background" : "view"): \(described.joined(separator: ", "))\(saves ? ", saved" : "")"
        view.flush()
        background.flush()
        view.flush()
    }

    /// One random edit; returns what it did. Runs on `context`'s queue.
    private func edit(in context: ManagedObjectContext, using generator: inout SeededGenerator) throws -> String {
        let contents = try context.fetch(FetchRequest<Content>()).sorted { $0.objectID! < $1.objectID! }
        let buckets = try context.fetch(FetchRequest<Bucket>()).sorted { $0.objectID! < $1.objectID! }
        let choice = contents.count < 4 ? 0 : Int.random(in: 0..<8, using: &generator)
        func anyName() -> String { Self.contentNames.randomElement(using: &generator)! }
        guard choice != 0, let content = contents.randomElement(using: &generator) else {
            let content = Int.random(in: 0..<4, using: &generator) == 0 ? ImageContent(context: context) : Content(context: context)
            content.name = anyName()
            content.rank = Int.random(in: 0..<3, using: &generator)
            content.isEven = Bool.random(using: &generator)
            content.bucket = buckets.randomElement(using: &generator)
            return "insert \(content.name)"
        }
        switch choice {
        case 1:
            context.delete(content)
            return "delete \(content.objectID!)"
        case 2:
            content.name = anyName()
            return "rename \(content.objectID!) to \(content.name)"
        case 3:
            content.rank = Int.random(in: 0..<3, using: &generator)
            return "rerank \(content.objectID!) to \(content.rank)"
        case 4:
            content.isEven.toggle()
            return "flip \(content.objectID!) to \(content.isEven)"
        case 5:
            content.bucket = buckets.randomElement(using: &generator)
            return "move \(content.objectID!) to \(content.bucket?.name ?? "no bucket")"
        case 6:
            guard let bucket = buckets.randomElement(using: &generator) else { return "nothing" }
            bucket.name = Self.bucketNames.randomElement(using: &generator)!
            return "rename bucket \(bucket.objectID!) to \(bucket.name)"
        default:
            let content = Content(context: context)
            content.name = anyName()
            content.isEven = true
            return "insert even \(content.name)"
        }
    }
}
