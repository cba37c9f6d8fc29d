import Dispatch

/// A task executor on a serial dispatch queue of its own: a task that prefers it runs there, never waiting for a
/// thread of the cooperative pool nor holding one while it blocks (the server's store calls; a test's consumer that
/// other tests' blocking work must not starve).
package final class SerialQueueExecutor: TaskExecutor {
    private let queue: DispatchQueue

    /// An executor on a new serial queue named `label`.
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
