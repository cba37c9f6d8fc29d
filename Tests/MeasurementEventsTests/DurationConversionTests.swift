import Testing

@testable import MeasurementEvents

/// The `Duration` conversions every timeout, interval and log line goes through.
struct DurationConversionTests {
    @Test(arguments: [
        (Duration.seconds(2), 2.0, 2_000.0), (.milliseconds(1_500), 1.5, 1_500.0), (.microseconds(2_500), 0.0025, 2.5),
        (.zero, 0.0, 0.0),
    ])
    func fractionalSecondsAndMillisecondsKeepTheFraction(duration: Duration, seconds: Double, milliseconds: Double) {
        #expect(abs(duration.inSeconds - seconds) < 1e-12)
        #expect(abs(duration.inMilliseconds - milliseconds) < 1e-9)
    }

    @Test(arguments: [
        (Duration.seconds(5), Int64(5_000)), (.milliseconds(3), 3), (.microseconds(1_999), 1),
        (.nanoseconds(999_999), 0),
    ])
    func wholeMillisecondsDropTheFraction(duration: Duration, milliseconds: Int64) {
        #expect(duration.wholeMilliseconds == milliseconds)
        #expect(duration.saturatingMilliseconds == milliseconds)
    }

    @Test func saturatingMillisecondsNeverGoBelowZeroOrOverflow() {
        #expect(Duration.seconds(-1).saturatingMilliseconds == 0)
        #expect(Duration.seconds(Int64.max).saturatingMilliseconds == .max)
        #expect(Duration.seconds(Int64.max / 1_000 + 1).saturatingMilliseconds == .max)
        #expect((Duration.seconds(Int64.max / 1_000) + .milliseconds(999)).saturatingMilliseconds == .max)
        #expect(Duration.seconds(Int64.max / 1_000).saturatingMilliseconds == Int64.max / 1_000 * 1_000)
    }
}
