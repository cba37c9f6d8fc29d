import AppLinks
import Foundation
import MeasurementEvents

/// The body of an installed app's claim of a click, `POST /v1/deferred` (docs/install.md, docs/http-api.md):
/// `{"click": "TOKEN", "install": "INSTALL-ID", "platform": "android"}`, the click also given as the raw install
/// referrer (`"referrer"`) or the pasteboard's URL (`"pasteboard"`), from which only the token is taken.
///
/// ```swift
/// let claim = try DeferredClaimRequest(json: body, publicURL: "https://go.example.com")
/// claim.click   // the token, or nil: an organic install reporting itself
/// ```
public struct DeferredClaimRequest: Sendable, Hashable {
    /// The most bytes of a claim's body (after decompression).
    public static let maximumBytes = 4_096

    /// Why a body is refused (400), with a stable code.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// `bad_json`, `bad_field`, `missing_install`, `bad_install` or `bad_platform`.
        public var code: String
        /// What was wrong, for people.
        public var description: String
    }

    /// The install id the app made once.
    public var install: String
    /// The platform the app runs on.
    public var platform: StorePlatform
    /// The click token given (as `click`, or found in `referrer` or `pasteboard`), not yet checked to be one; `nil`
    /// when there is none.
    public var click: String?

    /// The claim of `json`; a `pasteboard` URL gives its token only when it is under `publicURL` (`/l/...`).
    /// - Throws: ``Problem`` for a body that is not such an object.
    public init(json: JSONValue, publicURL: String) throws(Problem) {
        guard case .object(let object) = json else {
            throw Problem(
                code: "bad_json", description: "the body must be a JSON object such as {\"install\": \"...\"}")
        }
        for name in ["click", "referrer", "pasteboard", "install", "platform"] {
            if let value = object[name], value != .null, value.stringValue == nil {
                throw Problem(code: "bad_field", description: "\"\(name)\" must be a string")
            }
        }
        guard let install = object["install"]?.stringValue else {
            throw Problem(code: "missing_install", description: "\"install\" is missing: send the app's install id")
        }
        guard (1...128).contains(install.utf8.count), install.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Problem(
                code: "bad_install", description: "\"install\" must be 1 to 128 printable ASCII characters, no spaces")
        }
        guard let platform = object["platform"]?.stringValue.flatMap(StorePlatform.init(rawValue:)) else {
            throw Problem(code: "bad_platform", description: "\"platform\" must be \"ios\" or \"android\"")
        }
        self.install = install
        self.platform = platform
        if let click = object["click"]?.stringValue {
            self.click = click
        } else if let referrer = object["referrer"]?.stringValue {
            click = DeferredAppLink.clickToken(installReferrer: referrer)
        } else if let pasteboard = object["pasteboard"]?.stringValue {
            click = Self.token(pasteboard: pasteboard, publicURL: publicURL)
        }
    }

    /// The token of a pasteboard's text: only from a URL under `publicURL` whose path is a link's (`/l/...`).
    static func token(pasteboard: String, publicURL: String) -> String? {
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        let text = pasteboard.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.lowercased().hasPrefix(base.lowercased() + "/l/"), let host = URLComponents(string: base)?.host
        else { return nil }
        return DeferredAppLink.clickToken(pasteboard: text, linkHost: host)
    }
}
