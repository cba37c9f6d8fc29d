import MeasurementEvents

/// The batches of one drain between being read and being settled in the source, as a state machine without I/O
/// (``Uploader``'s drain runs the requests; this decides what goes next and which answers may be written).
///
/// Up to `capacity` requests are in flight, and at most `capacity + 1` batches read and not yet settled (the one
/// whose answer is being written while the next is sent), so a push stopped at any point sends again at most
/// `capacity + 1` batches. Answers are written to the source in the order the batches were read: only a contiguous
/// run of answered batches from the oldest is settled. A batch the collector asked for in halves is replaced in
/// that order by its two halves; the second half is sent once the first is answered.
///
/// ```swift
/// var window = UploadWindow(capacity: 2)
/// let a = window.send(), b = window.send()        // both in flight; window.canSend is false
/// window.answer(b, .settled(settlementB))         // nothing settled yet: a is older
/// window.answer(a, .settled(settlementA))
/// window.takeSettledRun()                        // [settlementA, settlementB]
/// ```
struct UploadWindow {
    /// What one request of a batch came to.
    enum Delivery: Sendable {
        /// The batch is answered: how it ends in the source.
        case settled(Settlement)
        /// The collector asked for smaller requests: these two halves go instead.
        case split(UploadBatch, UploadBatch)
    }

    /// How a batch, or a part of it, ends in the source once the batches before it have ended.
    enum Settlement: Sendable {
        /// Answered by a receipt.
        case receipt(UploadBatch, UploadReceipt)
        /// Dropped without one (a lone event the collector will not take), counted under the reasons.
        case dropped(UploadBatch, [DropReason: Int])
    }

    /// The most requests in flight at once.
    let capacity: Int
    /// The numbers of the batches read and not yet settled, oldest first (a split batch's halves take its place).
    private(set) var unsettled: [Int] = []
    /// The answers of those among them that were answered, by number.
    private var answers: [Int: Settlement] = [:]
    /// The second half of a split batch, by the number of its first half: its own number and the half.
    private var secondHalves: [Int: (number: Int, batch: UploadBatch)] = [:]
    /// The last number given.
    private var numbered = 0
    /// The requests sent and not yet answered.
    private(set) var inFlight = 0

    /// A window of `capacity` requests (at least one).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Whether another batch read from the source may be sent now.
    var canSend: Bool { inFlight < capacity && unsettled.count <= capacity }

    /// Whether every batch read has been settled.
    var isSettled: Bool { unsettled.isEmpty }

    /// Takes a batch read from the source: the number to send it under (it is in flight from now on).
    mutating func send() -> Int {
        let number = nextNumber()
        unsettled.append(number)
        inFlight += 1
        return number
    }

    /// Takes the answer of request `number`.
    /// - Returns: the halves to send now, each under its number: the first half of a split batch, or the second half
    ///   of one whose first half this answers.
    mutating func answer(_ number: Int, _ delivery: Delivery) -> [(number: Int, batch: UploadBatch)] {
        inFlight -= 1
        var sends: [(number: Int, batch: UploadBatch)] = []
        switch delivery {
        case .settled(let settlement):
            answers[number] = settlement
            if let second = secondHalves.removeValue(forKey: number) { sends.append(second) }
        case .split(let firstHalf, let secondHalf):
            // The halves take the batch's place; the second goes once the first is answered, and what was to
            // follow the batch (the second half of a batch it was the first half of) follows the second half.
            let halves = (first: nextNumber(), second: nextNumber())
            if let place = unsettled.firstIndex(of: number) {
                unsettled.replaceSubrange(place...place, with: [halves.first, halves.second])
            }
            secondHalves[halves.second] = secondHalves.removeValue(forKey: number)
            secondHalves[halves.first] = (halves.second, secondHalf)
            sends.append((halves.first, firstHalf))
        }
        inFlight += sends.count
        return sends
    }

    /// The answers of the contiguous run of answered batches from the oldest, in order, now settled.
    mutating func takeSettledRun() -> [Settlement] {
        var run: [Settlement] = []
        while let oldest = unsettled.first, let settlement = answers.removeValue(forKey: oldest) {
            run.append(settlement)
            unsettled.removeFirst()
        }
        return run
    }

    private mutating func nextNumber() -> Int {
        numbered += 1
        return numbered
    }
}
