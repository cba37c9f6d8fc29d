extension Subscription {
    /// Where a subscription is in its life; each case carries the data that only it needs.
    ///
    /// ```text
    /// running ⇄ idle ──stop──▶ stopping ──worker exits──▶ exited
    ///    └────────┴──cancel──▶ cancelled ──worker exits──▶ exited
    /// ```
    ///
    /// `stopping` may still turn into `cancelled` (the waiters for the exit carry over). An async-sequence
    /// subscription has no worker: it stays `stopping` or `cancelled` until it is released.
    enum Phase {
        /// Accepting events; the worker is awake, or about to look for work.
        case running
        /// Accepting events; the worker sleeps until `wake` is signalled, so a poster must signal it.
        case idle
        /// Accepting no more events; the worker delivers and commits what is queued, then exits and runs
        /// `exitWaiters`.
        case stopping(exitWaiters: [@Sendable () -> Void])
        /// Accepting no more events; what was queued is discarded and the worker exits at once, running
        /// `exitWaiters`.
        case cancelled(exitWaiters: [@Sendable () -> Void])
        /// The worker has exited; nothing is outstanding.
        case exited

        /// Whether new events are queued (`running` or `idle`).
        var acceptsEvents: Bool {
            switch self {
            case .running, .idle: true
            case .stopping, .cancelled, .exited: false
            }
        }

        /// Whether flushes have nothing left to wait for: the subscription was cancelled or has exited.
        var isFinished: Bool {
            switch self {
            case .cancelled, .exited: true
            case .running, .idle, .stopping: false
            }
        }

        /// Whether the worker is to drain, commit and exit.
        var isStopping: Bool {
            if case .stopping = self { return true }
            return false
        }

        /// Whether the worker is to exit at once.
        var isCancelled: Bool {
            if case .cancelled = self { return true }
            return false
        }

        /// Leaves `idle` for `running`; returns whether the worker was asleep (and so must be signalled).
        mutating func wake() -> Bool {
            guard case .idle = self else { return false }
            self = .running
            return true
        }

        /// Asks the worker to stop once it has drained what is queued. Returns `false` when the worker has
        /// already exited (or there is none) and `onExit` was not kept: the caller then runs it.
        mutating func stop(onExit: (@Sendable () -> Void)?, hasWorker: Bool) -> Bool {
            let waiters = onExit.map { [$0] } ?? []
            switch self {
            case .running, .idle:
                self = .stopping(exitWaiters: hasWorker ? waiters : [])
                return hasWorker
            case .stopping(let kept):
                self = .stopping(exitWaiters: kept + waiters)
                return hasWorker
            case .cancelled(let kept):
                self = .cancelled(exitWaiters: kept + waiters)
                return hasWorker
            case .exited:
                return false
            }
        }

        /// Asks the worker to exit at once, keeping the waiters for its exit.
        mutating func cancel() {
            switch self {
            case .running, .idle: self = .cancelled(exitWaiters: [])
            case .stopping(let kept): self = .cancelled(exitWaiters: kept)
            case .cancelled, .exited: break
            }
        }

        /// Marks the worker exited and returns the waiters for its exit.
        mutating func exit() -> [@Sendable () -> Void] {
            let waiters: [@Sendable () -> Void]
            switch self {
            case .stopping(let kept), .cancelled(let kept): waiters = kept
            case .running, .idle, .exited: waiters = []
            }
            self = .exited
            return waiters
        }
    }
}
