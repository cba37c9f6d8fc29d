import EventStoreInterface
import MeasurementEvents

/// The completeness counts of the ``DeviceLoss`` records that ``EventWriter`` stores as new, and of the events it
/// refuses itself (older than the retention horizon): those of the write in progress (forgotten when it fails) and
/// those of the open transaction (added to completeness at commit). A record stored again (its id already stored)
/// is a duplicate and never reaches the tally. A loss is counted on the UTC day of its record's time, when the device
/// counted it; a refused event on the day it was refused.
struct DeviceLossTally {
    /// What the collector's completeness reasons for device losses begin with.
    static let prefix = DropReason.devicePrefix

    private var batch: [CompletenessKey: Int] = [:]
    private var pending: [CompletenessKey: Int] = [:]

    /// Starts a write.
    mutating func beginBatch() {
        batch.removeAll(keepingCapacity: true)
    }

    /// Counts `event`, newly stored, when it is a loss record.
    /// - Returns: whether it was one (then it is not an App Links event: no rollup counts it).
    mutating func add(_ event: MeasurementEvent) -> Bool {
        guard event.name == DeviceLoss.eventName, let loss = DeviceLoss(event) else { return false }
        add(loss, at: event.timestamp)
        return true
    }

    /// Counts `loss`, a loss record newly stored whose time is `timestamp`.
    mutating func add(_ loss: DeviceLoss, at timestamp: Int64) {
        batch[CompletenessKey(loss.collectorReason, at: timestamp), default: 0] += loss.count
    }

    /// Counts an event the writer refused for `reason` (``DropReason/beforeRetention``) at `now`, as a line refused
    /// on receipt is counted: on the UTC day it was refused.
    mutating func refuse(_ reason: DropReason, at now: Int64) {
        batch[CompletenessKey(reason, at: now), default: 0] += 1
    }

    /// Keeps the counts of the write that succeeded for the commit.
    mutating func keepBatch() {
        pending.merge(batch, uniquingKeysWith: +)
        batch.removeAll(keepingCapacity: true)
    }

    /// The counts of the transaction, which it forgets.
    mutating func take() -> [CompletenessKey: Int] {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }

    /// Forgets everything (the transaction was rolled back).
    mutating func reset() {
        batch.removeAll()
        pending.removeAll()
    }
}
