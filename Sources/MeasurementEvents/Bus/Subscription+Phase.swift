extension Subscription {
    /// Where a subscription is in its life; each case carries the data that only it needs.
    ///
    /// ```text
    /// running ──stop──▶ stopping ──worker exits──▶ exited
    ///    └─────cancel──▶ cancelled ──worker exits──▶ exited
    /// ```
    ///
    /// `stopping` may still turn into `cancelled` (the waiters for the exit carry over). An async-sequence
    /// subscription has no worker: it stays `stopping` or `cancelled` until it is released. Whether the
    /// consumer sleeps is not a phase: posters read it without the lock, from ``Subscription/sleeping``.
    enum Phase {
        /// Accepting events.
        case running
        /// Accepting no more events; the worker delivers and commits what is queued, then exits and runs
        /// `exitWaiters`.
        case stopping(exitWaiters: [@Sendable () -> Void])
        /// Accepting no more events; what was queued is discarded and the worker exits at once, running
        /// `exitWaiters`.
        case cancelled(exitWaiters: [@Sendable () -> Void])
        /// The worker has exited; nothing is outstanding.
        case exited

        /// Whether new events are queued (only while `running`).
        var acceptsEvents: Bool {
            if case .running = self { return true }
            return false
        }

        /// Whether flushes have nothing left to wait for: the subscription was cancelled or has exited.
        var isFinished: Bool {
            switch self {
            case .cancelled, .exited: true
            case .running, .stopping: false
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

        /// Asks the worker to stop once it has drained what is queued. Returns `false` when the worker has
        /// already exited (or there is none) and `onExit` was not kept: the caller then runs it.
        mutating func stop(onExit: (@Sendable () -> Void)?, hasWorker: Bool) -> Bool {
            let waiters = onExit.map { [$0] } ?? []
            switch self {
            case .running:
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
            case .running: self = .cancelled(exitWaiters: [])
            case .stopping(let kept): self = .cancelled(exitWaiters: kept)
            case .cancelled, .exited: break
            }
        }

        /// Marks the worker exited and returns the waiters for its exit.
        mutating func exit() -> [@Sendable () -> Void] {
            let waiters: [@Sendable () -> Void]
            switch self {
            case .stopping(let kept), .cancelled(let kept): waiters = kept
            case .running, .exited: waiters = []
            }
            self = .exited
            return waiters
        }
    }
}
