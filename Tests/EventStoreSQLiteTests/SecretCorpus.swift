import Foundation
import MeasurementEvents

/// Random events carrying tokens in the places and encodings real App Links clients use, for the
/// property test of redaction (issue 11). Deterministic for a seed.
struct SecretCorpus {
    /// Where a token is placed.
    enum Place: CaseIterable {
        case flatField, nestedField, query, fragment, appLinkDataTop, appLinkDataExtras, targetURL, refererURL
    }

    /// One generated event with what a consumer must still find in it after redaction.
    struct Case {
        var event: MeasurementEvent
        var place: Place
        /// The token's alphanumeric runs of 8 bytes or more: none may be found anywhere after storage.
        var tokenRuns: [String]
        /// How many times `al_applink_data` was percent-encoded (0 when the case has none).
        var appLinkDataLayers: Int
    }

    static let target = "https://example.com/article/42?ref=feed&lang=en"
    static let refererURL = "https://referer.example/back?from=alstats"

    var generator: SeededGenerator

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    mutating func int(_ range: Range<Int>) -> Int { Int(generator.next() % UInt64(range.count)) + range.lowerBound }
    mutating func bool() -> Bool { generator.next() & 1 == 1 }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0..<values.count)] }

    /// A token: random letters and digits, sometimes with a space or an escaped quote inside.
    mutating func token() -> (text: String, runs: [String]) {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        func run(_ length: Int, _ corpus: inout SecretCorpus) -> String {
            String((0..<length).map { _ in alphabet[corpus.int(0..<alphabet.count)] })
        }
        let first = "Tk" + run(14, &self)
        switch int(0..<3) {
        case 0: return (first, [first])
        case 1:
            let second = run(12, &self)
            return (first + " " + second, [first, second])
        default:
            let second = run(12, &self)
            return (first + "\"" + second, [first, second])
        }
    }

    /// A secret key in random case.
    mutating func secretKey() -> String {
        let key = pick(Array(Redactor.defaultSecretKeys).sorted())
        return String(key.map { bool() && int(0..<3) == 0 ? Character($0.uppercased()) : $0 })
    }

    /// Percent-encodes every byte, or only the reserved ones, in upper- or lower-case hex.
    mutating func percentEncode(_ text: String, everyByte: Bool? = nil, plusForSpace: Bool = false) -> String {
        let every = everyByte ?? (int(0..<4) == 0)
        let lower = bool()
        let digits = Array((lower ? "0123456789abcdef" : "0123456789ABCDEF").utf8)
        var output: [UInt8] = []
        for byte in text.utf8 {
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            if plusForSpace && byte == UInt8(ascii: " ") && !every {
                output.append(UInt8(ascii: "+"))
            } else if unreserved && !every {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A query or fragment key: raw, or some or all of its bytes percent-encoded.
    mutating func encodedKey(_ key: String) -> String {
        switch int(0..<3) {
        case 0: return key
        case 1: return percentEncode(key, everyByte: true)
        default:
            // Encode one letter only, as clients that escape `_` or a first letter do.
            var characters = Array(key)
            let index = int(0..<characters.count)
            let encoded = percentEncode(String(characters[index]), everyByte: true)
            characters.replaceSubrange(index...index, with: Array(encoded))
            return String(characters)
        }
    }

    /// A JSON string literal, with random `\uXXXX` escapes of its letters.
    mutating func jsonString(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case _ where scalar.value <= 0xFFFF && int(0..<3) == 0: output += "\\u" + hex4(scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    mutating func hex4(_ value: UInt32) -> String {
        let text = String(value, radix: 16, uppercase: bool())
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }

    /// Optional white space around JSON punctuation.
    mutating func space() -> String { pick(["", "", " ", "\n  "]) }

    /// A JSON object text from members already written as JSON values.
    mutating func jsonObject(_ members: [(String, String)]) -> String {
        let body = members.map { key, value in jsonString(key) + space() + ":" + space() + value }
        return "{" + space() + body.joined(separator: "," + space()) + space() + "}"
    }

    mutating func makeCase(index: Int) -> Case {
        let place = pick(Place.allCases)
        let (secret, runs) = token()
        let key = secretKey()
        var fields: [String: String] = [FieldName.ref: "feed", "plan": "pro"]
        var layers = 0
        switch place {
        case .flatField:
            fields[key] = secret
        case .nestedField:
            fields["extras/" + key] = secret
        case .query:
            fields[FieldName.inputURL] =
                "example://item/7?x=1&" + encodedKey(key) + "=" + percentEncode(secret, plusForSpace: true)
                + "&ref=feed"
        case .fragment:
            fields[FieldName.inputURL] =
                "fb123://authorize#expires_in=0&" + encodedKey(key) + "=" + percentEncode(secret)
                + "&target_url=" + percentEncode(Self.target)
        case .appLinkDataTop, .appLinkDataExtras, .targetURL, .refererURL:
            (fields[FieldName.inputURL], layers) = appLinkURL(place: place, key: key, secret: secret)
        }
        let event = MeasurementEvent(
            id: EventID(uuidHigh: 0x0192_0000_0000_7000 | UInt64(index), low: generator.next() | 1 << 63),
            name: EventName.navIn, fields: fields, timestamp: 1_763_683_200_000 + Int64(index))
        return Case(event: event, place: place, tokenRuns: runs, appLinkDataLayers: layers)
    }

    /// `example://item/7?al_applink_data=...&ref=feed` with the token in the JSON at `place`.
    mutating func appLinkURL(place: Place, key: String, secret: String) -> (String, Int) {
        var target = jsonString(Self.target)
        var referer = jsonString(Self.refererURL)
        var extras: [(String, String)] = [("app_id", jsonString("123"))]
        var top: [(String, String)] = []
        switch place {
        case .appLinkDataTop: top.append((key, jsonString(secret)))
        case .appLinkDataExtras: extras.insert((key, jsonString(secret)), at: int(0..<2))
        case .targetURL:
            target = jsonString(Self.target + "&" + encodedKey(key) + "=" + percentEncode(secret))
        default:
            referer = jsonString(Self.refererURL + "&" + encodedKey(key) + "=" + percentEncode(secret))
        }
        top += [
            ("target_url", target), ("version", jsonString("1.0")), ("extras", jsonObject(extras)),
            ("referer_app_link", jsonObject([("url", referer), ("app_name", jsonString("Facebook"))])),
        ]
        var data = jsonObject(top)
        let layers = int(1..<3)
        for _ in 0..<layers { data = percentEncode(data, plusForSpace: bool()) }
        return ("example://item/7?al_applink_data=" + data + "&ref=feed", layers)
    }
}

/// What a consumer decodes from a stored `inputURL` with `al_applink_data`: Foundation's decoding and
/// JSONSerialization, independent of the redactor's own code.
enum ConsumerDecoding {
    /// The query pairs of `url` (`+` as a space), percent-decoded once.
    static func queryPairs(_ url: String) -> [String: String] {
        guard let question = url.firstIndex(of: "?") else { return [:] }
        let query = url[url.index(after: question)...].split(separator: "#", maxSplits: 1).first ?? ""
        var pairs: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            pairs[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return pairs
    }

    /// The `al_applink_data` object of `url`, decoded `layers` times.
    static func appLinkData(_ url: String, layers: Int) -> [String: Any]? {
        guard var text = queryPairs(url)["al_applink_data"] else { return nil }
        for _ in 1..<max(layers, 1) {
            text = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text
        }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }
}
