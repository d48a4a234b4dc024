#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Foundation
import Synchronization

/// Which contexts' queues the current thread is running: one frame per `perform` or
/// `performAndWait` block it is inside, innermost first, linked through the thread's stack.
///
/// `DispatchQueue.getSpecific` sees only the innermost queue, so inside
/// `view.performAndWait { background.performAndWait { … } }` it would say the thread is not on
/// the view's queue, although the thread holds it (it is blocked in the view queue's `sync`):
/// a nested `view.performAndWait` would then `sync` onto a queue the thread already holds, and
/// crash. The frames remember every queue held.
enum QueueFrames {
    /// One block being run for a context; lives on the stack of the thread that runs it.
    private struct Frame {
        let context: ObjectIdentifier
        let previous: UnsafeMutableRawPointer?
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()

    /// Runs `body` with `context` listed as held by this thread.
    static func run<Result>(holding context: ManagedObjectContext, _ body: () throws -> Result) rethrows -> Result {
        let key = key
        var frame = Frame(context: ObjectIdentifier(context), previous: pthread_getspecific(key))
        return try withUnsafeMutablePointer(to: &frame) { pointer in
            pthread_setspecific(key, pointer)
            defer { pthread_setspecific(key, pointer.pointee.previous) }
            return try body()
        }
    }

    /// Whether this thread is inside a block run for `context`.
    @inline(__always)
    static func holds(_ context: ManagedObjectContext) -> Bool {
        let wanted = ObjectIdentifier(context)
        var next = pthread_getspecific(key)
        while let pointer = next {
            let frame = pointer.assumingMemoryBound(to: Frame.self).pointee
            if frame.context == wanted { return true }
            next = frame.previous
        }
        return false
    }
}

extension ManagedObjectContext {
    /// Whether contexts made from now on check, at every entry point (fetch, insert, delete,
    /// save, a property set, `object(with:)` …), that they are used on their queue, and stop the
    /// process with a message naming the context and the call when they are not.
    ///
    /// On by default in debug builds, off in release builds, like Core Data's
    /// `-com.apple.CoreData.ConcurrencyDebug 1`. The environment variable
    /// `OBJECTGRAPH_CONCURRENCY_DEBUG` overrides the default (`1` on, `0` off); set this property
    /// at launch, before making containers, to decide in code:
    ///
    /// ```swift
    /// ManagedObjectContext.checksQueueConfinement = true   // also in release builds
    /// ```
    ///
    /// The check costs a few nanoseconds per call: a thread-local read.
    public static var checksQueueConfinement: Bool {
        get { queueChecksSwitch.load(ordering: .relaxed) }
        set { queueChecksSwitch.store(newValue, ordering: .relaxed) }
    }

    private static let queueChecksSwitch = Atomic<Bool>({
        switch getenv("OBJECTGRAPH_CONCURRENCY_DEBUG").map({ String(cString: $0) }) {
        case "1": return true
        case "0": return false
        default:
            #if DEBUG
            return true
            #else
            return false
            #endif
        }
    }())

    /// Stops the process unless the caller is on the context's queue (when checks are on).
    /// `call` names what was called, for the message.
    @inline(__always)
    func checkQueue(_ call: @autoclosure () -> String) {
        guard checksQueue, !QueueFrames.holds(self) else { return }
        checkQueueSlowly(call())
    }

    /// The check for code that runs on the queue without `perform` (a block submitted to
    /// ``queue`` directly), which the thread-local frames do not list.
    @inline(never)
    private func checkQueueSlowly(_ call: String) {
        guard DispatchQueue.getSpecific(key: queueKey) != ObjectIdentifier(self) else { return }
        fatalError("""
            ObjectGraph: the context '\(name)' was used off its queue: \(call) was called on a thread \
            that is not running the context's queue. Use the context inside perform { … } or \
            performAndWait { … } (see Docs/ContextsAndMerging.md, "Contexts and queues"). \
            OBJECTGRAPH_CONCURRENCY_DEBUG=0 turns this check off.
            """)
    }
}
