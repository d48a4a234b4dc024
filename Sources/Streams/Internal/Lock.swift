#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A small non-recursive lock: `pthread_mutex_t` on Linux, `os_unfair_lock` on Apple platforms.
///
/// The lock lives in its own heap allocation so that its address never moves. It is the only
/// lock the package uses; never call out to user code (a subscriber, a subscription, a closure)
/// while holding it.
@usableFromInline
package final class Lock: @unchecked Sendable {  // the primitive itself is the synchronisation
    #if canImport(Darwin)
    @usableFromInline let primitive: UnsafeMutablePointer<os_unfair_lock>
    #else
    @usableFromInline let primitive: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    @usableFromInline
    package init() {
        #if canImport(Darwin)
        primitive = .allocate(capacity: 1)
        primitive.initialize(to: os_unfair_lock())
        #else
        primitive = .allocate(capacity: 1)
        primitive.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(primitive, nil)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(primitive)
        #endif
        primitive.deinitialize(count: 1)
        primitive.deallocate()
    }

    @inlinable
    package func lock() {
        #if canImport(Darwin)
        os_unfair_lock_lock(primitive)
        #else
        pthread_mutex_lock(primitive)
        #endif
    }

    @inlinable
    package func unlock() {
        #if canImport(Darwin)
        os_unfair_lock_unlock(primitive)
        #else
        pthread_mutex_unlock(primitive)
        #endif
    }

    /// Runs `body` with the lock held. `body` must not call out to user code.
    @inlinable
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
