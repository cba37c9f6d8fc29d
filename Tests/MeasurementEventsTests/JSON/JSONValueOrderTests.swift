import MeasurementEvents
import Testing

/// AppLinks writes `al_applink_data` with the caller's members first; that relies on ordered objects.
@Test func parsedObjectsKeepMemberOrderWhenWrittenBack() throws {
    let text = #"{"ref":"feed","target_url":"https://example.com/a","version":"1.0","extras":{}}"#
    #expect(try JSONValue.parse(text).jsonText() == text)
}
