/// One drain at a time: the background loop and a host's `upload()` never send the same batch twice at once.
actor UploadGate {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Waits until no one else holds the gate, then holds it.
    func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Hands the gate to the next waiter, or frees it.
    func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
