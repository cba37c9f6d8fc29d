/// Events a device lost (its bus's drops, a full upload outbox), carried to the collector as an event of its
/// own so that the collector's report counts them (docs/events.md, `alstats_loss`).
///
/// The event is named `alstats_loss`, has a random id of its own and two fields: `reason` (the device's
/// ``DropReason``) and `count` (a decimal number). A store that writes it as a new event adds `count` to its
/// completeness under `device:REASON`, in the same transaction, instead of counting an App Links event; the
/// same record sent again (same id) is a duplicate and adds nothing, so a resent batch never counts twice.
///
/// ```swift
/// let record = DeviceLoss(reason: .bufferFull, count: 12).event(timestamp: now)
/// DeviceLoss(record)?.collectorReason   // "device:buffer_full"
/// ```
public struct DeviceLoss: Sendable, Hashable {
    /// The reserved event name of a loss record.
    public static let eventName = "alstats_loss"
    /// The longest reason a record may carry, in UTF-8 bytes.
    public static let maximumReasonBytes = 128
    /// The largest count a record may carry (a trillion), so that sums of counts never overflow.
    public static let maximumCount = 1_000_000_000_000

    /// Why the device lost the events.
    public var reason: DropReason
    /// How many it lost.
    public var count: Int

    /// A loss of `count` events for `reason`.
    public init(reason: DropReason, count: Int) {
        self.reason = reason
        self.count = count
    }

    /// Reads a loss record; `nil` when `event` is not named `alstats_loss`, or when its `reason` is empty or
    /// longer than ``maximumReasonBytes``, or its `count` is not a decimal number from 1 to ``maximumCount``
    /// (such an event is an ordinary event).
    public init?(_ event: MeasurementEvent) {
        guard event.name == DeviceLoss.eventName, let reason = event.fields["reason"], !reason.isEmpty,
            reason.utf8.count <= DeviceLoss.maximumReasonBytes, let text = event.fields["count"],
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), text.utf8.count <= 13, let count = Int(text),
            count > 0, count <= DeviceLoss.maximumCount
        else { return nil }
        self.init(reason: DropReason(rawValue: reason), count: count)
    }

    /// The record as an event with a fresh id (a UUIDv7: time and random bits) or `id`, at `timestamp` (ms since the Unix epoch).
    public func event(id: EventID = EventID(), timestamp: Int64) -> MeasurementEvent {
        MeasurementEvent(
            id: id, name: DeviceLoss.eventName, fields: ["reason": reason.rawValue, "count": String(count)],
            timestamp: timestamp)
    }

    /// The reason under which the collector counts the loss: `device:` and the device's reason.
    public var collectorReason: DropReason { DropReason(rawValue: "device:" + reason.rawValue) }
}
