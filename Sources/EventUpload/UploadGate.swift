/// One drain at a time: the background loop and a host's `upload()` never send the same batch twice at once.
actor UploadGate {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Waits until no one else holds the gate, then holds it.
    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Runs `body` holding the gate: after any other holder, and before the next.
    nonisolated func holding<Result>(_ body: () async throws(UploadError) -> Result) async throws(UploadError)
        -> Result
    {
        await acquire()
        do {
            let result = try await body()
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    /// Hands the gate to the next waiter, or frees it.
    private func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
