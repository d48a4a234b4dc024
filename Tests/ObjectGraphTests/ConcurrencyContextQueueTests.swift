import Dispatch
import Foundation
import Synchronization
import ObjectGraph
import Testing

@Suite("Concurrency: a context is used on its queue, and misuse is caught")
struct ConcurrencyContextQueueTests {
    @Test("performAndWait nested across contexts, view → background → view, completes", arguments: StoreFlavor.allCases)
    func nestedPerformAndWait(flavor: StoreFlavor) throws {
        let container = try CorrectnessModel.container(flavor)
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let title = try view.performAndWait {
            try background.performAndWait {
                try view.performAndWait {
                    let entry = Entry(context: view)
                    entry.title = "nested"
                    try view.save()
                    #expect(view.isOnQueue && background.isOnQueue)
                }
                return try background.fetch(FetchRequest<Entry>()).first?.title
            }
        }
        #expect(title == "nested")
        // Inside a perform block on another queue, the nesting works the same way.
        let done = DispatchSemaphore(value: 0)
        background.perform {
            view.performAndWait {
                background.performAndWait { _ = try? background.fetch(FetchRequest<Entry>()) }
            }
            done.signal()
        }
        done.wait()
    }

    @Test("a context is not on its queue for another thread while a nested performAndWait holds it")
    func onQueueIsPerThread() throws {
        let container = try CorrectnessModel.container(.inMemory)
        let view = container.viewContext
        let background = container.newBackgroundContext()
        view.performAndWait {
            background.performAndWait {
                let seenElsewhere = Atomic<Bool>(true)
                let done = DispatchSemaphore(value: 0)
                Thread {
                    seenElsewhere.store(view.isOnQueue || background.isOnQueue, ordering: .relaxed)
                    done.signal()
                }.start()
                done.wait()
                let seen = seenElsewhere.load(ordering: .relaxed)
                #expect(!seen)
            }
        }
        #expect(!view.isOnQueue && !background.isOnQueue)
    }

    /// Uses a new background context off its queue with `call`; the process must stop with a
    /// message that names the context and the call.
    static func misuse(_ call: String) throws {
        let container = try PersistentContainer(model: CorrectnessModel.model, store: .inMemory, viewContextQueue: DispatchQueue(label: "misuse.view"))
        let context = container.newBackgroundContext(name: "importer")
        let entry = try context.performAndWait {
            let entry = Entry(context: context)
            try context.save()
            return entry
        }
        switch call {
        case "fetch": _ = try context.fetch(FetchRequest<Entry>())
        case "insert": context.insert(Entry())
        case "delete": context.delete(entry)
        case "save": try context.save()
        case "property": entry.title = "off the queue"
        case "object(with:)": _ = context.object(with: entry.objectID!)
        default: break
        }
    }

    @Test("fetch off the queue stops with a message naming the context and the call")
    func offQueueFetch() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { try Self.misuse("fetch") }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("importer") && message.contains("fetch"), "\(message)")
    }

    @Test("insert off the queue stops with a message naming the context and the call")
    func offQueueInsert() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { try Self.misuse("insert") }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("importer") && message.contains("insert"), "\(message)")
    }

    @Test("delete off the queue stops with a message naming the context and the call")
    func offQueueDelete() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { try Self.misuse("delete") }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("importer") && message.contains("delete"), "\(message)")
    }

    @Test("save off the queue stops with a message naming the context and the call")
    func offQueueSave() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { try Self.misuse("save") }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("importer") && message.contains("save"), "\(message)")
    }

    @Test("a property set off the queue stops with a message naming the context and the property")
    func offQueueProperty() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { try Self.misuse("property") }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("importer") && message.contains("Entry.title"), "\(message)")
    }

    @Test("object(with:) off the queue stops with a message naming the context and the call")
    func offQueueObjectWith() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { try Self.misuse("object(with:)") }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("importer") && message.contains("object(with:)"), "\(message)")
    }

    @Test("the check is on in debug builds, and a switch decides for contexts made later")
    func switchable() throws {
        #expect(ManagedObjectContext.checksQueueConfinement)
        ManagedObjectContext.checksQueueConfinement = false
        defer { ManagedObjectContext.checksQueueConfinement = true }
        let container = try CorrectnessModel.container(.inMemory)
        let background = container.newBackgroundContext()
        ManagedObjectContext.checksQueueConfinement = true
        // Made while the switch was off: used off its queue (here, from one thread only, so
        // safely), it does not stop.
        #expect(try background.fetch(FetchRequest<Entry>()).isEmpty)
    }
}
