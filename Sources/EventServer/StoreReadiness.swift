import MeasurementEvents

/// A gate the services that read the store before a request does (``AlertNotifier``) wait at, until the application
/// has readied the store (connected and migrated it, `beforeServerStarts`): the application's services start
/// together with the HTTP server, whose prelude readies the store.
final class StoreReadiness: Sendable {
    private struct State {
        var ready = false
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = StateLock(State())

    /// Opens the gate: every waiter and every later ``wait()`` goes on.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.ready = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Waits until the gate is open (at once when it is) or the task is cancelled.
    /// - Returns: whether the gate is open (`false`: cancelled first).
    func wait() async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let answer = state.withLock { state -> Bool? in
                    if state.ready { return true }
                    if Task.isCancelled { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: false)
        }
    }
}
