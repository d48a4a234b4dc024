#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Foundation
import Streams

/// Wakes the readers of a SQLite file through named pipes in a folder beside it, as Realm does:
/// `<file>-wakeups/` holds one pipe (FIFO) per listening container, in any process; a writer,
/// after each commit, writes one byte into every pipe but its own.
///
/// Why pipes: they cross processes with nothing running in between (no daemon, no port), wake a
/// reader within microseconds, work wherever the file's folder is shared (an app and its
/// extensions in an app group, containers on one volume), and cost a writer one `write` per
/// reader. One pipe per reader, because a byte in a shared pipe wakes only the reader that
/// reads it. A pipe whose reader is gone refuses to open (`ENXIO`) or to take the byte
/// (`EPIPE`): the writer removes it, so a killed process leaves nothing behind for long, and
/// ``isListening(_:)`` tells the history's trimming that such a reader will not come back.
///
/// A writer that cannot signal (killed between its commit and its signal, or the `sqlite3`
/// shell) is caught by the change feed looking at the file now and then on its own.
final class FIFOWakeUpChannel: WakeUpChannel, @unchecked Sendable {
    // `lock` protects the writing side (`targets`, `scannedStamp`, `scanIsUncertain`) and the
    // listening side (`listening`); both are touched from any thread through the methods below.
    // Only system calls happen under it, no callout.
    private let lock = Lock()
    let directory: String
    /// The permission bits pipes get: those of the store file, so that whoever may write the
    /// store may wake its readers.
    private let pipeMode: mode_t
    private var targets: [String: Int32] = [:]
    private var scannedStamp: (seconds: Int, nanoseconds: Int)?
    /// Set when the folder changed so recently that another change in the same clock tick could
    /// hide behind the same time stamp: the next signal lists the folder again.
    private var scanIsUncertain = true
    private var listening: Listener?

    private struct Listener {
        let name: String
        let source: DispatchSourceRead
    }

    /// The channel of the store file at `storePath`.
    init(storePath: String) {
        directory = storePath + "-wakeups"
        var info = stat()
        pipeMode = stat(storePath, &info) == 0 ? info.st_mode & 0o666 : 0o644
    }

    deinit {
        stopListening()
        for descriptor in targets.values { close(descriptor) }
    }

    // MARK: Listening

    func startListening(on queue: DispatchQueue, from token: Int64, _ handler: @escaping @Sendable (WakeUp) -> Void) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if let listening { return listening.name }
        // The start token and the time lead the name (see `listenerStarts`).
        let name = "\(token)-\(Int64(Date().timeIntervalSince1970))-\(UUID().uuidString)"
        // Made and opened under a hidden name, then renamed: a writer never sees a pipe whose
        // reader has not opened it yet (it would take it for a dead one). The folder may vanish
        // between `mkdir` and `mkfifo` (the last listener removes it): then once more.
        let hidden = "\(directory)/.\(name)"
        var made = false
        for _ in 0..<2 where !made {
            guard mkdir(directory, 0o777) == 0 || errno == EEXIST else { return nil }
            made = mkfifo(hidden, 0o600) == 0
        }
        guard made else { return nil }
        chmod(hidden, pipeMode)
        let readEnd = open(hidden, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        // A writing end of its own keeps the pipe from reporting end-of-file when no writer has
        // it open, which would make it readable for ever.
        let keepOpen = readEnd >= 0 ? open(hidden, O_WRONLY | O_NONBLOCK | O_CLOEXEC) : -1
        guard readEnd >= 0, keepOpen >= 0, rename(hidden, "\(directory)/\(name)") == 0 else {
            if readEnd >= 0 { close(readEnd) }
            if keepOpen >= 0 { close(keepOpen) }
            unlink(hidden)
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: queue)
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(readEnd, &buffer, buffer.count) > 0 {}
            handler(.look)
        }
        source.setCancelHandler {
            close(readEnd)
            close(keepOpen)
        }
        source.resume()
        listening = Listener(name: name, source: source)
        return name
    }

    func stopListening() {
        let stopped: Listener? = lock.withLock {
            defer { listening = nil }
            return listening
        }
        guard let stopped else { return }
        unlink("\(directory)/\(stopped.name)")
        rmdir(directory)  // the last listener leaves nothing beside the file; fails while others listen
        stopped.source.cancel()
    }

    // MARK: Signalling

    func signal() {
        lock.lock()
        defer { lock.unlock() }
        refreshTargets()
        guard !targets.isEmpty else { return }
        let own = listening?.name
        var gone: [String] = []
        withSIGPIPEBlocked {
            var byte: UInt8 = 1
            for (name, descriptor) in targets where name != own {
                // A full pipe (EAGAIN) has a wake-up waiting already.
                if write(descriptor, &byte, 1) < 0, errno != EAGAIN, errno != EINTR { gone.append(name) }
            }
        }
        for name in gone { forget(name, removingPipe: true) }
    }

    func isListening(_ endpoint: String) -> Bool? {
        if lock.withLock({ listening?.name == endpoint }) { return true }
        let descriptor = open("\(directory)/\(endpoint)", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if descriptor >= 0 {
            close(descriptor)
            return true
        }
        return errno == ENXIO || errno == ENOENT ? false : nil
    }

    /// The pipes named `<start token>-<seconds since 1970>-<UUID>` (a pipe of an older version
    /// carries neither), made at most `maximumAge` seconds ago, whose reader still runs.
    func listenerStarts(maximumAge: TimeInterval) -> [String: Int64] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        let now = Date().timeIntervalSince1970
        var starts: [String: Int64] = [:]
        for name in names where !name.hasPrefix(".") {
            let parts = name.split(separator: "-", maxSplits: 2)
            guard parts.count == 3, let token = Int64(parts[0]), let made = Int64(parts[1]),
                  now - TimeInterval(made) <= maximumAge, isListening(name) == true else { continue }
            starts[name] = token
        }
        return starts
    }

    /// Opens the pipes of listeners that appeared since the folder was last listed, and forgets
    /// those that went; called with the lock held.
    private func refreshTargets() {
        var info = stat()
        guard stat(directory, &info) == 0 else {
            for name in Array(targets.keys) { forget(name, removingPipe: false) }
            return
        }
        #if canImport(Darwin)
        let stamp = (seconds: Int(info.st_mtimespec.tv_sec), nanoseconds: Int(info.st_mtimespec.tv_nsec))
        #else
        let stamp = (seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec))
        #endif
        guard scanIsUncertain || scannedStamp.map({ $0 != stamp }) ?? true else { return }
        scannedStamp = stamp
        // File times advance by clock ticks (milliseconds): a listener arriving within the same
        // tick as the last change would not move the stamp. List again until the stamp is old.
        scanIsUncertain = Date().timeIntervalSince1970 - (Double(stamp.seconds) + Double(stamp.nanoseconds) / 1e9) < 0.1
        let names = Set(((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") })
        for name in targets.keys where !names.contains(name) { forget(name, removingPipe: false) }
        for name in names where targets[name] == nil && name != listening?.name {
            let descriptor = open("\(directory)/\(name)", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 {
                #if canImport(Darwin)
                _ = fcntl(descriptor, F_SETNOSIGPIPE, 1)
                #endif
                targets[name] = descriptor
            } else if errno == ENXIO {
                unlink("\(directory)/\(name)")  // nobody reads it: its process is gone
            }
        }
    }

    private func forget(_ name: String, removingPipe: Bool) {
        if let descriptor = targets.removeValue(forKey: name) { close(descriptor) }
        if removingPipe { unlink("\(directory)/\(name)") }
    }

    /// Runs `body` with SIGPIPE blocked on this thread, and discards a SIGPIPE it raised: a write
    /// to a pipe whose reader just died must fail with `EPIPE`, not end the process. (Apple's
    /// systems spare each descriptor the signal instead, with `F_SETNOSIGPIPE`.)
    private func withSIGPIPEBlocked(_ body: () -> Void) {
        #if canImport(Darwin)
        body()
        #else
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        var pendingBefore = sigset_t()
        sigpending(&pendingBefore)
        body()
        if sigismember(&pendingBefore, SIGPIPE) == 0 {
            var pendingAfter = sigset_t()
            sigpending(&pendingAfter)
            if sigismember(&pendingAfter, SIGPIPE) == 1 {
                var immediately = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeSignal, nil, &immediately)
            }
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        #endif
    }
}
