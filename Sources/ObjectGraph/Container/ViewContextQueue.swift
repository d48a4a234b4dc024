import Dispatch
import Foundation
import Synchronization

/// The queue a container's view context gets when you pass none.
///
/// The view context merges other contexts' saves and delivers live results on its queue. The
/// main queue is right in an app, whose run loop drains it; in a command-line tool, a daemon, a
/// server or a test runner nothing may ever run the main queue, and everything the view context
/// would merge and deliver there would wait for ever, without a word. So the default is:
///
/// - in an app or app extension (a process started from an `.app` or `.appex` bundle, on
///   Apple's systems): the main queue, as Core Data's `viewContext`;
/// - everywhere else (every process on Linux): a serial queue of the view context's own.
///
/// Pass `viewContextQueue: .main` to have the main queue anyway — for example in a command-line
/// tool that calls `dispatchMain()` or runs `RunLoop.main` — and any serial queue you like:
///
/// ```swift
/// let container = try PersistentContainer(model: model, storeURL: url, viewContextQueue: .main)
/// dispatchMain()
/// ```
///
/// Whatever the queue, ``ManagedObjectContext/performAndWait(_:)`` works from any thread.
///
/// When you pass `.main` outside an app and nothing runs the main queue for
/// ``mainQueueGracePeriod``, the process says so once on its standard error, naming the fix:
/// that mistake would otherwise only show as live results that never change.
public enum ViewContextQueue {
    /// How long the main queue may stay unserved before a container whose view context uses it
    /// outside an app says so.
    public static let mainQueueGracePeriod: DispatchTimeInterval = .seconds(10)
    /// Whether this process is an app or an app extension, whose main queue its run loop drains.
    public static var processIsApp: Bool {
        #if canImport(Darwin)
        let kind = Bundle.main.bundleURL.pathExtension
        return kind == "app" || kind == "appex"
        #else
        return false
        #endif
    }

    /// The main queue in an app, a new serial queue elsewhere (see ``ViewContextQueue``).
    public static func standard() -> DispatchQueue {
        processIsApp ? .main : DispatchQueue(label: "ObjectGraph.view")
    }

    /// Whether the warning was written (once per process).
    private static let warned = Atomic<Bool>(false)

    /// Checks, outside an app, that something runs the main queue when a view context was put
    /// on it; writes the warning once if nothing does within the grace period.
    static func checkMainQueueIsServed(by queue: DispatchQueue, storePath: String) {
        guard queue === DispatchQueue.main, !processIsApp, !warned.load(ordering: .relaxed) else { return }
        let served = Atomic<Bool>(false)
        DispatchQueue.main.async { served.store(true, ordering: .relaxed) }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + mainQueueGracePeriod) {
            guard !served.load(ordering: .relaxed), !warned.exchange(true, ordering: .relaxed) else { return }
            FileHandle.standardError.write(Data("""
                ObjectGraph: the view context of the store at \(storePath) runs on the main queue, but nothing has run the \
                main queue for a while, so its merges and live results are waiting. Call dispatchMain() or run \
                RunLoop.main, or leave viewContextQueue out (outside an app the view context then gets a queue of its own).

                """.utf8))
        }
    }
}
