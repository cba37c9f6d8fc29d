import Foundation
import Synchronization
import Testing

@testable import EventStoreSQLite

#if canImport(Glibc)
import Glibc
#endif

/// `FreedMemory.release()`, which an ingest calls after each commit, hands memory freed inside glibc's arenas
/// back to the system.
/// Not under ThreadSanitizer (`ALSTATS_TSAN`), whose allocator replaces glibc's: there is nothing to trim.
struct FreedMemoryTests {
    #if canImport(Glibc) && !ALSTATS_TSAN
    /// The share of the whole pages inside `ranges` that are resident (`mincore`). Pages, not the process's
    /// RSS: other tests allocate in parallel, and the process's RSS moved by tens of MB while this one ran.
    static func residentShare(of ranges: [(start: Int, end: Int)]) -> Double {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var resident = 0
        var total = 0
        for range in ranges {
            let first = (range.start + page - 1) / page * page
            let last = range.end / page * page
            guard last > first else { continue }
            var flags = [UInt8](repeating: 0, count: (last - first) / page)
            guard mincore(UnsafeMutableRawPointer(bitPattern: first), last - first, &flags) == 0 else { continue }
            resident += flags.filter { $0 & 1 == 1 }.count
            total += flags.count
        }
        return total == 0 ? 1 : Double(resident) / Double(total)
    }

    @Test func freedBlocksInsideAnArenaStopBeingResident() throws {
        // 48 MiB in 1 KiB blocks, on a thread of its own (an arena other than the main one, as the ingest's
        // threads are); every 64th block stays allocated, so the arena's top cannot simply shrink.
        let thread = Thread {
            let blocks = (0..<49_152).map { _ in malloc(1_024)! }
            for block in blocks { memset(block, 1, 1_024) }
            let kept = Set(blocks.enumerated().filter { $0.offset % 64 == 0 }.map { Int(bitPattern: $0.element) })
            // The runs of adjacent freed blocks (16 bytes of chunk header between two blocks).
            var freed: [(start: Int, end: Int)] = []
            for address in blocks.map({ Int(bitPattern: $0) }).sorted() where !kept.contains(address) {
                if let last = freed.last, address - last.end <= 16 {
                    freed[freed.count - 1].end = address + 1_024
                } else {
                    freed.append((address, address + 1_024))
                }
            }
            for block in blocks where !kept.contains(Int(bitPattern: block)) { free(block) }
            let before = Self.residentShare(of: freed)
            FreedMemory.release()
            let after = Self.residentShare(of: freed)
            for block in blocks where kept.contains(Int(bitPattern: block)) { free(block) }
            Self.result.withLock { $0 = (before, after) }
        }
        thread.start()
        while Self.result.withLock({ $0 }) == nil { usleep(1_000) }
        let (before, after) = try #require(Self.result.withLock { $0 })
        #expect(before > 0.9, "freed but not released: \(before) of the pages resident")
        #expect(after < 0.5, "released: \(after) of the pages still resident")
    }

    static let result = Mutex<(Double, Double)?>(nil)
    #endif
}
