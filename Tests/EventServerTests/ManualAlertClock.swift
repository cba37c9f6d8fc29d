#if Server

import EventServer
import MeasurementEvents

/// A clock for the alert notifier that moves only when told: a wait ends when ``advance(by:)`` reaches its deadline
/// (or at once when the clock shows it already), so that no test waits for time to pass.
final class ManualAlertClock: AlertClock {
    private struct State {
        var now: Int64
        var sleepers: [Int: (deadline: Int64, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextSleeper = 0
    }

    private let state: StateLock<State>

    init(milliseconds: Int64) {
        state = StateLock(State(now: milliseconds))
    }

    func nowMilliseconds() -> Int64 { state.withLock { $0.now } }

    func sleep(until deadline: Int64) async throws {
        let id = state.withLock { state -> Int in
            state.nextSleeper += 1
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = (deadline, continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `milliseconds`; the waits that reach their deadline end.
    func advance(by milliseconds: Int64) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now += milliseconds
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}

#endif
