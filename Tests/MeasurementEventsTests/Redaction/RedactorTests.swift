import Testing

@testable import MeasurementEvents

struct RedactorTests {
    let redactor = Redactor()

    @Test(arguments: [
        (
            "fb123://authorize#expires_in=0&access_token=SECRET1&target_url=https%3A%2F%2Fexample.com",
            "fb123://authorize#expires_in=0&access_token=REDACTED&target_url=https%3A%2F%2Fexample.com"
        ),
        ("https://a.example/cb?code=SECRET1&state=x", "https://a.example/cb?code=REDACTED&state=x"),
        ("https://a.example/cb?Access_Token=SECRET1", "https://a.example/cb?Access_Token=REDACTED"),
        (
            "example://a?al_applink_data=%7B%22extras%22%3A%7B%22fb_access_token%22%3A%22SECRET1%22%7D%7D",
            "example://a?al_applink_data=%7B%22extras%22%3A%7B%22fb_access_token%22%3A%22REDACTED%22%7D%7D"
        ),
        (
            "example://a?al_applink_data=%257B%2522extras%2522%253A%257B%2522fb_access_token%2522%253A%2522SECRET1%2522%257D%257D",
            "example://a?al_applink_data=%257B%2522extras%2522%253A%257B%2522fb_access_token%2522%253A%2522REDACTED%2522%257D%257D"
        ),
        (
            "example://a?al_applink_data=%7B%22extras%22%3A+%7B%22password%22+%3A+%22SE+CRET1%22%7D%7D",
            "example://a?al_applink_data=%7B%22extras%22%3A+%7B%22password%22+%3A+%22REDACTED%22%7D%7D"
        ),
        (
            #"{"target_url":"https://x.example/?id_token=SECRET1&a=1","client_secret":42}"#,
            #"{"target_url":"https://x.example/?id_token=REDACTED&a=1","client_secret":"REDACTED"}"#
        ),
        ("example://a?zipcode=75001&encode=1", "example://a?zipcode=75001&encode=1"),
    ])
    func replacesSecretValuesInURLsAndEmbeddedJSON(input: String, expected: String) {
        #expect(redactor.redact(urlString: input) == expected)
    }

    @Test func redactsFlattenedSecretKeysAndValuesInFields() {
        let fields = [
            "extras/fb_access_token": "SECRET1",
            "Password": "SECRET2",
            FieldName.inputURL: "fb1://authorize#access_token=SECRET3",
            FieldName.ref: "news",
        ]
        let redacted = redactor.redact(fields: fields)
        #expect(redacted["extras/fb_access_token"] == "REDACTED")
        #expect(redacted["Password"] == "REDACTED")
        #expect(redacted[FieldName.inputURL] == "fb1://authorize#access_token=REDACTED")
        #expect(redacted[FieldName.ref] == "news")
    }

    @Test func redactsSecretMembersOfJSONValues() {
        let value: JSONValue = ["extras": ["FB_ACCESS_TOKEN": "SECRET1", "app": "x"], "refresh_token": ["a": 1]]
        let redacted = redactor.redact(json: value)
        #expect(redacted["extras"]?["FB_ACCESS_TOKEN"] == .string("REDACTED"))
        #expect(redacted["extras"]?["app"] == .string("x"))
        #expect(redacted["refresh_token"] == .string("REDACTED"))
    }

    @Test func leavesTextWithoutSecretsByteForByte() {
        let url = "example://article/42?al_applink_data=%7B%22target_url%22%3A%22https%3A%2F%2Fexample.com%22%7D"
        #expect(redactor.redact(urlString: url) == url)
        let event = MeasurementEvent(name: EventName.navOut, fields: [FieldName.outputURL: url])
        #expect(redactor.redact(event) == event)
    }

    @Test func usesTheConfiguredKeys() {
        let custom = Redactor(secretKeys: ["api_key"])
        #expect(custom.redact(urlString: "x://a?api_key=K&code=C") == "x://a?api_key=REDACTED&code=C")
    }

    /// With no keys nothing is secret: an event's fields, even those the default keys redact, stay as they are.
    @Test func noKeysRedactNothing() {
        let fields = [
            FieldName.outputURL: "https://a.example/cb?code=SECRET1&access_token=SECRET2", "password": "SECRET3",
        ]
        let event = MeasurementEvent(name: EventName.navOut, fields: fields)
        #expect(Redactor(secretKeys: []).redact(event) == event)
        #expect(Redactor(secretKeys: [""]).redact(event) == event)
        #expect(redactor.redact(event) != event)
    }

    @Test func theQuickScanNeverMissesWhatTheFullScanWouldRedact() {
        let pieces = [
            "access_token", "CODE", "password", "x", "ref", "%22", "%2522", "\\\"", "\"", "=", ":", "%3D", "%253A", "+",
            " ", "&", "?", "#", "{", "}", "%7B", "secret1", "%", "25", "a%25code", "%00", "\u{0}",
        ]
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 1...8, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }
            .joined()
            if redactor.redactText(text) != text {
                #expect(redactor.mayHoldSecret(text), "quick scan missed: \(text)")
            }
        }
    }
}
