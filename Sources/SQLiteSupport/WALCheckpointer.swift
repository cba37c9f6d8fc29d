import CSQLite
import Foundation

/// Copies a write connection's WAL back into the database file on a thread of its own, so that the writer
/// does not stop for it.
///
/// SQLite's own automatic checkpoint runs inside the `COMMIT` that crosses its threshold, on the writer's
/// thread: every ~10,000 pages the writer reads them back from the WAL, writes them into the database file
/// and syncs it, while the events behind it wait. This replaces it (a WAL hook replaces SQLite's automatic
/// checkpoint) with two steps, measured in docs/design/storage-layout.md ("Checkpoints off the writer's thread"):
///
/// - Every ``Thresholds/background`` new frames, the hook wakes a thread that runs a `PASSIVE` checkpoint on
///   a connection of its own. A passive checkpoint never blocks the writer or readers, and the writer's
///   appends go on while it copies.
/// - SQLite starts the WAL over from its beginning only when a write transaction begins with every frame
///   already copied. Behind a writer that commits all the time the background checkpoint seldom wins that
///   race, so at ``Thresholds/backstop`` frames the hook itself checkpoints, as SQLite's own would (after the
///   thread's checkpoint in progress, which would make it give up). By then the thread has copied all but the
///   latest frames, so this costs little, and the next transaction starts the WAL over: the file stays within
///   the backstop and one commit.
///
/// A checkpoint that fails (busy, a full disk) loses nothing: the frames stay in the WAL, readers still find
/// them there, and the next checkpoint copies them; SQLite's own automatic checkpoint ignores its result too.
package final class WALCheckpointer: @unchecked Sendable {
    // @unchecked Sendable: `phase` and `completed` are only touched under `condition`; `nextRequest` and
    // `lastFrames` only by the writer's thread (in the hook, which runs inside its commits); the thread's
    // connection only by the thread.

    /// When the checkpoints run, in WAL frames (pages).
    package struct Thresholds: Sendable {
        /// New frames after which the background thread checkpoints.
        package var background: Int32
        /// Frames in the WAL at which the writer checkpoints itself after its commit.
        package var backstop: Int32

        package init(background: Int32, backstop: Int32) {
            self.background = background
            self.backstop = backstop
        }

        /// 1,000 and 10,000 frames: 16 MiB and 160 MiB of the store's 16 KiB pages.
        package static let standard = Thresholds(background: 1_000, backstop: 10_000)
    }

    /// Where the background thread is, from the first request to its end.
    private enum Phase: Equatable {
        /// No checkpoint was asked for yet: the thread has not started.
        case unstarted
        /// The thread waits for a request.
        case waiting
        /// A checkpoint was asked for; the thread has not begun it yet.
        case requested
        /// The thread is checkpointing; `again` when another request came meanwhile (it runs one more).
        case checkpointing(again: Bool)
        /// Asked to stop; the thread ends after its checkpoint in progress, if `checkpointing`.
        case stopping(checkpointing: Bool)
        /// The thread has ended, or was stopped before it started.
        case stopped

        /// Whether the thread's connection is checkpointing now (so the writer's backstop waits for it).
        var isCheckpointing: Bool {
            switch self {
            case .checkpointing, .stopping(checkpointing: true): true
            case .unstarted, .waiting, .requested, .stopping(checkpointing: false), .stopped: false
            }
        }
    }

    package let path: String
    package let thresholds: Thresholds
    /// Guards `phase` and `completed`. A condition variable, not a `Mutex`: the thread sleeps until a request or
    /// a stop, the writer's backstop until the thread's checkpoint ends, and ``stop(uninstallingFrom:)`` until the
    /// thread has ended.
    private let condition = NSCondition()
    private var phase = Phase.unstarted
    private var completed = 0
    private var nextRequest: Int32
    private var lastFrames: Int32 = 0

    /// A checkpointer for the database at `path`; its thread starts at the first request.
    package init(path: String, thresholds: Thresholds) {
        self.path = path
        self.thresholds = thresholds
        nextRequest = thresholds.background
    }

    /// Installs the checkpointer on `connection` as its WAL hook (replacing SQLite's automatic checkpoint).
    /// The connection must keep the checkpointer alive, and call ``stop(uninstallingFrom:)`` before closing.
    package func install(on connection: OpaquePointer) {
        sqlite3_wal_hook(
            connection,
            { context, database, _, frames in
                guard let context, let database else { return SQLITE_OK }
                Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(
                    frames: frames, on: database)
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// How many checkpoints the background thread has run.
    package var backgroundCheckpoints: Int {
        condition.lock()
        defer { condition.unlock() }
        return completed
    }

    /// Called by the hook after each commit of the writer, with the frames now in the WAL.
    private func committed(frames: Int32, on database: OpaquePointer) {
        if frames < lastFrames { nextRequest = thresholds.background }  // the WAL started over
        lastFrames = frames
        if frames >= thresholds.backstop {
            // After the thread's checkpoint in progress, if any (a checkpoint that finds another one running
            // gives up at once), and before it starts another one.
            condition.lock()
            defer { condition.unlock() }
            while phase.isCheckpointing { condition.wait() }
            _ = sqlite3_wal_checkpoint_v2(database, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard frames >= nextRequest else { return }
        nextRequest = frames + thresholds.background
        condition.lock()
        defer { condition.unlock() }
        switch phase {
        case .unstarted:
            phase = .requested
            Thread.startNamed("alstats-ckpt") { [self] in run() }
        case .waiting: phase = .requested
        case .checkpointing: phase = .checkpointing(again: true)
        case .requested, .stopping, .stopped: break
        }
        condition.signal()
    }

    /// Stops the thread (waiting for a checkpoint in progress) and removes the hook from `connection`.
    package func stop(uninstallingFrom connection: OpaquePointer) {
        sqlite3_wal_hook(connection, nil, nil)
        condition.lock()
        defer { condition.unlock() }
        switch phase {
        case .unstarted: phase = .stopped
        case .waiting, .requested: phase = .stopping(checkpointing: false)
        case .checkpointing: phase = .stopping(checkpointing: true)
        case .stopping, .stopped: break
        }
        condition.broadcast()
        while phase != .stopped { condition.wait() }
    }

    /// The thread: a connection of its own, a passive checkpoint per request, until stopped.
    private func run() {
        var database: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if sqlite3_open_v2(path, &database, flags, nil) == SQLITE_OK, let database {
            // A first read opens the WAL; a checkpoint on a connection that has read nothing may find none.
            sqlite3_exec(database, "SELECT count(*) FROM sqlite_schema", nil, nil, nil)
        } else {
            sqlite3_close_v2(database)  // the writer's backstop checkpoints alone
            database = nil
        }
        while true {
            condition.lock()
            while phase == .waiting { condition.wait() }
            guard phase == .requested else {  // stopping
                condition.unlock()
                break
            }
            phase = .checkpointing(again: false)
            condition.unlock()
            if let database { _ = sqlite3_wal_checkpoint_v2(database, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil) }
            condition.lock()
            switch phase {
            case .checkpointing(let again): phase = again ? .requested : .waiting
            case .stopping: phase = .stopping(checkpointing: false)
            case .unstarted, .waiting, .requested, .stopped: break
            }
            completed += 1
            condition.broadcast()
            condition.unlock()
        }
        sqlite3_close_v2(database)
        condition.lock()
        phase = .stopped
        condition.broadcast()
        condition.unlock()
    }
}
