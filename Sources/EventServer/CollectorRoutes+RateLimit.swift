import Hummingbird
import MeasurementEvents

extension CollectorRoutes {
    /// What a collector route goes on with: its body or intake within the key's rate, or the answer to a request over
    /// it. A refusal holds no body: the request's bytes are let go before its pause.
    enum Admission<Value> {
        case within(Value)
        case refused(Refusal)
    }

    /// The 429 to a request over its key's rate, sent after a pause.
    ///
    /// The pause (``ServerLimits/refusalPause``, never longer than `Retry-After`) is for the clients that send again
    /// at once, without waiting: they get a few answers a second per connection, so that a flood of refused requests
    /// cannot take the CPU the other keys' requests need.
    struct Refusal: Sendable {
        let response: Response
        let pause: Duration

        /// The answer, once the pause is over (at once when the request's task is cancelled).
        func answer() async -> Response {
            if pause > .zero { try? await Task.sleep(for: pause) }
            return response
        }
    }

    /// The 429 of a request of `lines` lines (or calls) whose key is over its rate, nil when it is within it: a
    /// receipt that rejects every line (at the positions `numbers` gives) with the code `rate_limited` (Segment's
    /// with `success: false`), then `code` and `message`, with `Retry-After` in whole seconds. Nothing is stored,
    /// nor counted in the completeness (the client sends the same lines again).
    func refusal(_ lines: Int, context: Context, segment: Bool, _ numbers: () -> [Int]) -> Refusal? {
        guard case .refused(let seconds, let rate) = limiter.take(events: lines, key: context.writeKey) else {
            return nil
        }
        context.tally.set(events: lines)
        metrics.events(accepted: 0, duplicates: 0, rejected: ["rate_limited": lines])
        let reason =
            "this write key is over its rate of \(Self.number(rate.eventsPerSecond ?? 0)) events a second (burst "
            + "\(Self.number(rate.burst))): nothing was stored; send again after \(seconds) s"
        var text = Receipt.allRejectedText(
            lines: lines, numbers: numbers(), code: "rate_limited", reason: reason, success: segment ? false : nil)
        // Segment's and RudderStack's libraries read a failure's `code` and `message` from the top level: with them,
        // Segment logs the 429 as a rate limit to wait out, not as an unknown error.
        text.removeLast()
        text += #","code":"rate_limited","message":\#(JSONValue.string(reason).jsonText())}"#
        let response = Response.text(
            text + "\n", contentType: "application/json", status: .tooManyRequests,
            headers: [.retryAfter: String(seconds)])
        return Refusal(response: response, pause: min(limiter.refusalPause, .seconds(seconds)))
    }

    /// A rate or burst as people write it: `10000`, `2.5`.
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
