import MeasurementEvents

extension Report.Alert {
    /// The alert that ``json`` wrote (an alert kept as JSON, such as an alert episode's in the store); `nil` for a
    /// value that is not one: an unknown dimension or measure, a missing count, a count below zero.
    ///
    /// ```swift
    /// let alert = Report.Alert(json: try JSONValue.parse(text))
    /// ```
    public init?(json: JSONValue) {
        guard let dimension = json["dimension"]?.stringValue.flatMap(Dimension.init(rawValue:)),
            let measure = json["measure"]?.stringValue.flatMap(Measure.init(rawValue:)),
            let now = Self.period(json["now"]), let before = Self.period(json["before"])
        else { return nil }
        var topFailure: TopFailure?
        if let failure = json["top_failure"], failure != .null {
            guard let nowCount = Self.count(failure["now"]), let beforeCount = Self.count(failure["before"]) else {
                return nil
            }
            topFailure = TopFailure(error: failure["error"]?.stringValue, now: nowCount, before: beforeCount)
        }
        var explains: [Report.Alert] = []
        if case .array(let items)? = json["explains"] {
            for item in items {
                guard let alert = Report.Alert(json: item) else { return nil }
                explains.append(alert)
            }
        }
        self.init(
            dimension: dimension, value: json["value"]?.stringValue, measure: measure, now: now, before: before,
            topFailure: topFailure, explains: explains)
    }

    private static func period(_ json: JSONValue?) -> Period? {
        guard let json, let attempts = count(json["attempts"]), let succeeded = count(json["succeeded"]) else {
            return nil
        }
        return Period(attempts: attempts, succeeded: succeeded)
    }

    private static func count(_ json: JSONValue?) -> Int? {
        guard case .int(let value)? = json, value >= 0 else { return nil }
        return Int(value)
    }
}
