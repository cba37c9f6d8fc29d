import Testing

@testable import MeasurementEvents

/// `Redactor.redact(_: [MeasurementEvent])` splits a large batch across cores: the result must be the
/// event-by-event redaction, in order, with every secret gone and every whole-value fallback counted.
struct RedactorBatchTests {
    /// Event `index`: a secret in a URL, in a percent-encoded `al_applink_data`, under a secret key, in a
    /// value that hides a secret but does not parse (replaced whole and counted), or no secret at all.
    static func event(_ index: Int) -> MeasurementEvent {
        let token = "TOKEN\(index)X"
        let fields: [String: String]
        switch index % 5 {
        case 0: fields = ["inputURL": "https://a.example/cb?access_token=\(token)&n=\(index)"]
        case 1:
            let data = "%7B%22extras%22%3A%7B%22fb_access_token%22%3A%22\(token)%22%7D%7D"
            fields = ["outputURL": "example://a?al_applink_data=\(data)"]
        case 2: fields = ["password": token, "ref": "r\(index)"]
        case 3: fields = ["note": "%7B%22code%22%3A%22\(token)"]
        default: fields = ["targetURL": "https://a.example/article/\(index)"]
        }
        return MeasurementEvent(
            id: EventID(uuidHigh: UInt64(index), low: 0x8000_0000_0000_0000), name: EventName.navIn, fields: fields,
            timestamp: 1_763_683_200_000 + Int64(index))
    }

    @Test(arguments: [1, Redactor.parallelShare * 2 - 1, Redactor.parallelShare * 2, Redactor.parallelShare * 7 + 3])
    func aBatchIsRedactedExactlyAsEventByEvent(count: Int) {
        let events = (0..<count).map(RedactorBatchTests.event)
        let single = Redactor()
        let expected = events.map { single.redact($0) }
        let batch = Redactor()
        let redacted = batch.redact(events)
        #expect(redacted == expected)
        #expect(batch.conservativeRedactions == single.conservativeRedactions)
        for (index, event) in redacted.enumerated() {
            let token = "TOKEN\(index)X"
            #expect(!event.fields.values.contains { $0.contains(token) }, "event \(index): \(event.fields)")
        }
    }
}
