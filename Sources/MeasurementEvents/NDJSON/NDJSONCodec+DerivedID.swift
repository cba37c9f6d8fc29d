extension NDJSONCodec {
    /// The id NDJSON ingest gives an event sent without one: a hash of its name, time and fields, so that
    /// the same event sent twice (by a retry, or by another collector path) is stored once.
    ///
    /// ```swift
    /// let id = NDJSONCodec.derivedEventID(name: "signup", timestamp: 1_763_683_200_000, fields: ["ref": "ad"])
    /// ```
    public static func derivedEventID(name: String, timestamp: Int64, fields: [String: String]) -> EventID {
        derivedID(name: name, timestamp: timestamp, fields: fields)
    }
}
