import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The project's lock vocabulary:
// - `StateLock` for shared state and for code that must run alone (`StateLock(())`): `Synchronization.Mutex`, or
//   `Locked` in ThreadSanitizer builds. Use it, not `Mutex` directly (TSan reports false races inside `Mutex` on
//   Linux), nor `NSLock`.
// - A condition variable (`NSCondition`) only where a thread must sleep until another changes the state: the
//   ingest reader, the WAL checkpointer, the group commit writer. `DispatchSemaphore` only as a one-shot or
//   wake-up signal between threads (a thread's start or end, the bus's idle worker).
// - No lock at all where posters meet the bus's consumers: `EventRing` (Synchronization's `Atomic`, Vyukov's
//   bounded queue) and the `sleeping` handshake of `Subscription` (docs/design/event-bus.md).

#if ALSTATS_TSAN
/// The lock for small shared state: a pthread mutex in ThreadSanitizer builds (see ``Locked``).
package typealias StateLock<Value> = Locked<Value>
#else
/// The lock for small shared state: `Synchronization.Mutex`, whose uncontended lock is an inlined atomic.
/// ThreadSanitizer builds (`-Xswiftc -DALSTATS_TSAN`) use ``Locked`` instead, which it can see.
package typealias StateLock<Value> = Mutex<Value>
#endif

/// A value guarded by a pthread mutex, which ThreadSanitizer understands.
///
/// On Linux, ThreadSanitizer does not see the futex-based locking of `Synchronization.Mutex` and reports
/// races inside every `withLock` (checked with Swift 6.3.1: two threads incrementing a `Mutex<Int>`
/// 100,000 times each end at exactly 200,000 and still get reports). `Mutex` is faster (about 30 ns per
/// post on the bus, which takes two locks), so ``StateLock`` is `Mutex` in normal builds and this class in
/// the ThreadSanitizer build CI runs; the code that locks is the same in both.
///
/// `@unchecked Sendable`: `value` is only read or written inside `withLock`, between
/// `pthread_mutex_lock` and `pthread_mutex_unlock` on `mutex`, which lives as long as the object.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates a lock guarding `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Do not call `withLock` on the same lock inside it.
    @inline(__always)
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
