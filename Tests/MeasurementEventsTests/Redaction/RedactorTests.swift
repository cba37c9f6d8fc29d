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

    /// A value nested under a secret key is one of its values: every part of a flattened key is a key, so
    /// `{"k":{"access_token":{"inner":"S"}}}` (flattened `k/access_token/inner`) is redacted, as are dotted keys.
    @Test(arguments: [
        ("k/access_token/inner", true), ("access_token/inner", true), ("a.Password.b", true), ("x/y/code", true),
        ("code.z", true), ("extras/fb_access_token", true), ("codes/x", false), ("x/passwords", false),
        ("zipcode/x", false), ("a//b", false), ("/", false), ("ref", false),
    ])
    func everyPartOfAFlattenedKeyIsAKey(key: String, secret: Bool) {
        #expect(redactor.isSecret(key: key) == secret)
        #expect(redactor.redact(fields: [key: "S3CR3T"])[key] == (secret ? "REDACTED" : "S3CR3T"))
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

    /// The check that rules out escaped text without decoding it never rules out text whose decoded form shows a
    /// secret: keys whole or in parts, letters, digits and `\` as escapes at one or two depths, escapes built from
    /// a `%` and escaped digits, JSON escapes, separators plain and escaped.
    @Test func escapedTextIsRuledOutOnlyWhenItsDecodedFormShowsNoSecret() {
        let pieces = [
            "access_token", "code", "CODE", "acc", "ess_token", "co", "de", "%61", "%2561", "%41", "%63", "%6F", "%64",
            "%65", "%25", "%", "6", "1", "3", "D", "%36", "%31", "%33", "%44", "%5C", "%255C", "\\", "u0061", "\\u0063",
            "=", ":", "%3D", "%3A", "%253D", "%22", "%2522", "\"", " ", "+", "%20", "&", "%26", "{", "}", "%7B", "x",
            "REDACTED", "https://a.example/", "%00", "_",
        ]
        // Keys spelled in every way a decoder undoes, then a separator and a value.
        let keys = [
            "access_token", "CODE", "%61ccess_token", "%2561ccess_token", "\\u0061ccess_token", "%5Cu0061ccess_token",
            "%255Cu0063ode", "c%6Fde", "co%25%36%34e", "%%36%31ccess_token", "%25%36%31ccess_token", "co\\u0064e",
        ]
        let separators = ["=", ":", "%3D", "%253A", "%22:", "\\\":", " = ", "%20%3D"]
        let values = ["x", "REDACTED", "%22x%22", "%2522REDACTED%2522"]
        var generator = SeededGenerator(seed: 11)
        var ruledOut = 0
        var exposing = 0
        for round in 0..<50_000 {
            func some(_ count: ClosedRange<Int>) -> String {
                (0..<Int.random(in: count, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                    .joined()
            }
            let text =
                round.isMultiple(of: 2)
                ? some(1...10)
                : some(0...3) + keys.randomElement(using: &generator)! + separators.randomElement(using: &generator)!
                    + values.randomElement(using: &generator)! + some(0...3)
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { bytes in
                let exposes = redactor.exposesSecret(decoding: bytes)
                if exposes { exposing += 1 }
                if !redactor.mayShowKeyOnceDecoded(bytes) {
                    ruledOut += 1
                    #expect(!exposes, "ruled out, yet its decoded form shows a secret: \(text)")
                }
            }
        }
        #expect(ruledOut > 5_000, "the check rules out text in the corpus (\(ruledOut))")
        #expect(exposing > 5_000, "the corpus holds text that shows a secret once decoded (\(exposing))")
    }
}
