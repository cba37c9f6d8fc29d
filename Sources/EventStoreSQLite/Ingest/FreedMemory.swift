#if canImport(Glibc)
import Glibc
#endif

/// Hands the allocator's free pages back to the system.
///
/// glibc keeps what a long ingest frees inside its per-thread arenas: in a 10M-event ingest about 15 MB of
/// the two threads' arenas were free yet resident. An ingest calls ``release()`` after each commit (every
/// ``IngestOptions/batchSize`` events), which `malloc_trim` does in well under a millisecond at these sizes.
/// Elsewhere (Apple's allocator returns free pages itself) it does nothing.
enum FreedMemory {
    static func release() {
        #if canImport(Glibc)
        _ = trim?(0)
        #endif
    }

    #if canImport(Glibc)
    /// glibc's `malloc_trim`, declared in `<malloc.h>`, which the Glibc module does not export.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
    #endif
}
