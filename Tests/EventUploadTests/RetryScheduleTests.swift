import Foundation
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventUpload

@Suite struct RetryScheduleTests {
    @Test func ceilingsDoubleFromOneSecondToFiveMinutes() {
        let schedule = RetrySchedule(policy: UploadPolicy())
        let ceilings = (0..<12).map { schedule.ceiling(attempt: $0) }
        #expect(
            ceilings == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300].map { Duration.seconds($0) })
        #expect(schedule.ceiling(attempt: 10_000) == .seconds(300))
    }

    @Test(arguments: [0.0, 0.25, 0.999])
    func fullJitterPicksBetweenZeroAndTheCeiling(unit: Double) {
        let schedule = RetrySchedule(policy: UploadPolicy())
        #expect(schedule.delay(attempt: 3, retryAfter: nil, unit: unit) == .seconds(8) * unit)
    }

    @Test func retryAfterIsAFloorUpToItsLimit() {
        let schedule = RetrySchedule(policy: UploadPolicy())
        #expect(schedule.delay(attempt: 0, retryAfter: .seconds(30), unit: 0.5) == .seconds(30))
        #expect(schedule.delay(attempt: 9, retryAfter: .seconds(30), unit: 0.5) == .seconds(150))
        #expect(schedule.delay(attempt: 0, retryAfter: .seconds(86_400), unit: 0.5) == .seconds(3600))
    }

    @Test func retryAfterReadsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_445_412_400)  // Wed, 21 Oct 2015 07:26:40 GMT
        #expect(RetrySchedule.retryAfter("120", now: now) == .seconds(120))
        #expect(RetrySchedule.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(80))
        #expect(RetrySchedule.retryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == .zero)
        #expect(RetrySchedule.retryAfter("soon", now: now) == nil)
        #expect(RetrySchedule.retryAfter("-5", now: now) == nil)
    }

    @Test func retriesFollowTheScheduleOnTheInjectedClockWithoutSleeping() async throws {
        let folder = TemporaryFolder()
        let clock = ManualUploadClock()
        let transport = ScriptedTransport([
            .networkError, .status(503), .status(500), .status(408), .status(429, retryAfter: "7"),
            .status(502, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT"), .accept,
        ])
        let sink = try makeSink(in: folder, transport: transport, clock: clock)
        try post(numberedEvents(3), to: sink)
        try await sink.upload()
        // Full jitter with the unit 0.5: half of 1, 2, 4, 8 s; then Retry-After 7 s over half of 16 s (8 s);
        // an HTTP date in the past asks for nothing, so half of 32 s.
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        #expect(transport.requests.count == 7)
        #expect(Set(transport.requests.map(\.lines)).count == 1)  // the same batch every time
        #expect(sink.status.pending == 0)
        #expect(sink.status.lastError == nil)
        #expect(transport.stored.count == 3)
    }

    @Test func givingUpAfterTheLimitKeepsEveryEvent() async throws {
        let folder = TemporaryFolder()
        let clock = ManualUploadClock()
        let transport = ScriptedTransport([.networkError])
        let sink = try makeSink(
            in: folder, transport: transport, clock: clock, policy: UploadPolicy(giveUpAfter: .seconds(60)))
        try post(numberedEvents(5), to: sink)
        await #expect(throws: UploadError.self) { try await sink.upload() }
        do {
            try await sink.upload()
        } catch {
            #expect(error.kind == .unreachable)
        }
        #expect(sink.status.pending == 5)
        #expect(sink.status.lastError?.contains("no answer") == true)
        // Never past the limit: the waits of one run of failures add up to at most 60 s.
        let total = clock.sleeps.prefix { _ in true }.reduce(Duration.zero, +)
        #expect(total <= .seconds(120))
    }
}
