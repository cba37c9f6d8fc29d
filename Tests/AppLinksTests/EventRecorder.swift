import MeasurementEvents

/// A private bus with a memory sink: post through `bus`, then read `events()` (flushes first).
struct EventRecorder {
    let bus = MeasurementEventBus(clock: ManualEventClock(milliseconds: 1_763_683_200_000))
    let sink = MemoryEventSink()

    init() {
        bus.attach(sink)
    }

    /// Every event posted so far, after the bus delivered them.
    func events() -> [MeasurementEvent] {
        bus.flush()
        return sink.events
    }
}

/// Percent-encodes a JSON text the strict way, as a sender would put it in a query.
func encoded(_ json: String) -> String {
    var result = ""
    for byte in json.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            result.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            result += "%" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
    return result
}
