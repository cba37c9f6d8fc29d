import MeasurementEvents

/// The load of the memory measures (`bus` and `reliability` suites): distinct events posted as fast as
/// possible to a bus whose consumer is slow, with resident memory sampled along the way.
enum SlowConsumerLoad {
    /// Posts `count` `al_nav_in` events with distinct values (so that buffered events really hold memory)
    /// and returns the peak growth of resident memory over the posting, in bytes.
    static func post(_ count: Int, to bus: MeasurementEventBus, sampleEvery: Int = 10_000) -> Double {
        let before = residentBytes()
        var peak = before
        let padding = String(repeating: "x", count: 64)
        for index in 0..<count {
            bus.post(
                EventName.navIn,
                fields: [
                    FieldName.inputURL: "example://item/\(index)?ref=slow&padding=\(padding)",
                    FieldName.ref: "slow-\(index % 97)",
                ])
            if index % sampleEvery == 0 { peak = max(peak, residentBytes()) }
        }
        peak = max(peak, residentBytes())
        return Double(max(0, peak - before))
    }

    /// What a consumer's buffer may hold: two buffers' worth of events (queued plus the batch being
    /// delivered) at a generous 1 KiB each, plus 16 MiB for the allocator's slack.
    static func memoryBound(capacity: Int) -> Double {
        Double(2 * capacity * 1_024 + 16 << 20)
    }
}
