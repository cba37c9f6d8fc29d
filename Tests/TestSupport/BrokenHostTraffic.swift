import MeasurementEvents

/// Outbound navigations in which one source host breaks: what the alert tests run on. video.example.org (refs feed
/// and share) succeeds 96 times in 100 in a healthy hour and 30 in a broken one; news.example 90 in 100 in both.
///
/// ```swift
/// // An alert on video.example.org for the last 24 hours against the 24 before:
/// let events = BrokenHostTraffic.events(endingAt: now, brokenHoursAgo: 6, healthyHoursAgo: 30)
/// ```
public enum BrokenHostTraffic {
    static let hour: Int64 = 3_600_000

    /// 200 navigations each of video.example.org and news.example from `healthyHoursAgo` hours before `end`, and 200
    /// each from `brokenHoursAgo` hours before it, 10 s apart.
    public static func events(endingAt end: Int64, brokenHoursAgo: Int64, healthyHoursAgo: Int64) -> [MeasurementEvent]
    {
        var events: [MeasurementEvent] = []
        for (hoursAgo, videoRate) in [(healthyHoursAgo, 96), (brokenHoursAgo, 30)] {
            for index in 0..<200 {
                let timestamp = end - hoursAgo * hour + Int64(index) * 10_000
                for (host, rate) in [("video.example.org", videoRate), ("news.example", 90)] {
                    events.append(
                        navigation(
                            host: host, ref: index % 2 == 0 ? "feed" : "share", succeeded: index % 100 < rate,
                            at: timestamp))
                }
            }
        }
        return events
    }

    /// `count` successful navigations of video.example.org from `hoursAgo` hours before `end`, 1 s apart: enough
    /// of them (2,000 against the broken hour's 200) bring its success back near the healthy hour's.
    public static func recovery(endingAt end: Int64, hoursAgo: Int64, count: Int = 2_000) -> [MeasurementEvent] {
        (0..<count).map { index in
            navigation(
                host: "video.example.org", ref: index % 2 == 0 ? "feed" : "share", succeeded: true,
                at: end - hoursAgo * hour + Int64(index) * 1_000)
        }
    }

    static func navigation(host: String, ref: String, succeeded: Bool, at timestamp: Int64) -> MeasurementEvent {
        var fields = ["sourceURLHost": host, "ref": ref, "success": succeeded ? "1" : "0"]
        fields["type"] = succeeded ? "app" : "fail"
        if !succeeded { fields["error"] = "open_failed" }
        return MeasurementEvent(name: EventName.navOut, fields: fields, timestamp: timestamp)
    }
}
