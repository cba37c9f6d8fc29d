import Foundation
import MeasurementEvents
import Testing

@testable import EventStoreInterface

/// The JSON object the fields outside the catalogue are stored as (`EventColumns.encodeExtra`).
struct ExtraFieldsJSONTests {
    @Test func extraFieldsAreAJSONObjectInByteOrderWithEveryValueExact() throws {
        var extra = [
            ("zeta", "plain"), ("b", "quote \" backslash \\ newline \n tab \t bell \u{07} end"),
            ("é", "café 😀"), ("a", ""), ("B", String(repeating: "long ", count: 200)), ("a/b", "{\"json\":1}"),
        ]
        let expected = Dictionary(uniqueKeysWithValues: extra)
        let text = EventColumns.encodeExtra(&extra)
        #expect(extra.map(\.0) == ["B", "a", "a/b", "b", "zeta", "é"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(object == expected)
        #expect(text.hasPrefix(#"{"B":"long long "#))
        #expect(text.contains(#""b":"quote \" backslash \\ newline \n tab \t bell \u0007 end""#))
    }

    @Test func noExtraFieldsIsAnEmptyObject() {
        var extra: [(String, String)] = []
        #expect(EventColumns.encodeExtra(&extra) == "{}")
    }
}
