import Dispatch
import Foundation

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
public enum ViewContextQueue {
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
}
