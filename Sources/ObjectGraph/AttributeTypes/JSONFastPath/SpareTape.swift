#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Each thread's spare ``JSONTape``, so that reading `Codable` attributes one after another
/// allocates no tape once the thread has one: a tape nothing else holds once its value is
/// decoded is kept, and the thread's next parse writes over it. Per thread, so that taking and
/// keeping need no lock; a decode takes and keeps on the thread it runs on.
enum SpareTape {
    /// Tapes of large documents (over about 1 KB of JSON) are not kept: one would hold its
    /// memory as long as its thread.
    private static let maximumCapacity = 512

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // The thread's spare is released when the thread ends.
        let status = pthread_key_create(&key) { spare in
            guard let spare else { return }
            Unmanaged<JSONTape>.fromOpaque(spare).release()
        }
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()

    /// The thread's spare tape, if it has room for `capacity` nodes; it is the caller's now.
    static func take(capacity: Int) -> JSONTape? {
        let key = key
        guard let spare = pthread_getspecific(key) else { return nil }
        let tape = Unmanaged<JSONTape>.fromOpaque(spare)
        guard tape.takeUnretainedValue().nodeCapacity >= capacity else { return nil }
        pthread_setspecific(key, nil)
        return tape.takeRetainedValue()
    }

    /// Keeps `tape` as the thread's spare if nothing else holds it (a decoder an `init(from:)`
    /// kept, say) and it is not too large; it replaces the spare the thread had.
    static func keep(_ tape: inout JSONTape) {
        guard isKnownUniquelyReferenced(&tape), tape.nodeCapacity <= maximumCapacity else { return }
        tape.clear()
        let key = key
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passRetained(tape).toOpaque())
        if let previous { Unmanaged<JSONTape>.fromOpaque(previous).release() }
    }
}
