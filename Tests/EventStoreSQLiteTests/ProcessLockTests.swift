import EventStoreInterface
import EventStoreSQLite
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two stores on one file in one process (`alstats serve` opens a writer and a reader): the second must not
/// release the first's locks, or another process closing the database deletes the WAL still being written,
/// and the commits that follow vanish.
@Suite struct ProcessLockTests {
    /// Whether another process sees a lock in SQLite's shared-lock range of `path`: asked from a forked child,
    /// since opening and closing the file here would itself release this process's locks. The child makes
    /// async-signal-safe calls only.
    static func sharedLockHeld(_ path: String) -> Bool {
        let child = path.withCString { name in
            let pid = fork()
            guard pid == 0 else { return pid }
            let fd = open(name, O_RDONLY)
            guard fd >= 0 else { _exit(2) }
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            lock.l_start = 0x4000_0002  // SQLite's SHARED_FIRST (PENDING_BYTE + 2)
            lock.l_len = 510  // SHARED_SIZE
            guard fcntl(fd, F_GETLK, &lock) == 0 else { _exit(2) }
            _exit(lock.l_type == Int16(F_UNLCK) ? 0 : 1)
        }
        var status: Int32 = 0
        waitpid(child, &status, 0)
        return (status >> 8) & 0xFF == 1
    }

    @Test func aSecondStoreOnTheSameFileKeepsTheFirstStoresLock() throws {
        let database = TemporaryDatabase()
        let first = try SQLiteEventStore(path: database.path)
        try first.write(sampleEvents(3))
        #expect(ProcessLockTests.sharedLockHeld(database.path))
        let second = try SQLiteEventStore(path: database.path)
        #expect(try second.count() == 3)
        #expect(ProcessLockTests.sharedLockHeld(database.path), "the WAL's owner lost its lock")
        try first.write(sampleEvents(2, idPrefix: "more"))
        #expect(try second.count() == 5)
    }
}
