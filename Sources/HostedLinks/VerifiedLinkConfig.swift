import MeasurementEvents

/// The verified-link part of the serve config: `"ios_app_ids"` and `"android_apps"` (docs/hosted-links.md, "On your own
/// domain"), read from the config file's JSON; other keys of the file are left to their owners.
///
/// ```swift
/// let config = try VerifiedLinkConfig(json: JSONValue.parse(#"{"ios_app_ids": ["TEAM.com.example"]}"#))
/// config.appleAppSiteAssociation   // the body of /.well-known/apple-app-site-association
/// ```
public struct VerifiedLinkConfig: Sendable, Hashable {
    /// The `TEAMID.bundle.id` of each iOS app allowed to open `/l/*`.
    public var iosAppIDs: [String]
    /// The Android apps allowed to open the links.
    public var androidApps: [VerifiedLinkFiles.AndroidApp]

    /// Creates a config.
    public init(iosAppIDs: [String] = [], androidApps: [VerifiedLinkFiles.AndroidApp] = []) {
        self.iosAppIDs = iosAppIDs
        self.androidApps = androidApps
    }

    /// Reads the two keys from the config object; absent keys configure nothing.
    /// - Throws: ``LinkValidationError`` naming the offending field (`android_apps[0].package`).
    public init(json: JSONValue) throws(LinkValidationError) {
        self.init()
        iosAppIDs = try Self.strings(json["ios_app_ids"], field: "ios_app_ids")
        guard let apps = json["android_apps"], apps != .null else { return }
        guard case .array(let items) = apps else {
            throw LinkValidationError(field: "android_apps", reason: "must be an array of apps")
        }
        for (index, item) in items.enumerated() {
            let path = "android_apps[\(index)]"
            guard let package = item["package"]?.stringValue, !package.isEmpty else {
                throw LinkValidationError(field: "\(path).package", reason: "is required and must be a string")
            }
            let fingerprints = try Self.strings(
                item["sha256_cert_fingerprints"], field: "\(path).sha256_cert_fingerprints")
            guard !fingerprints.isEmpty else {
                throw LinkValidationError(field: "\(path).sha256_cert_fingerprints", reason: "needs a fingerprint")
            }
            androidApps.append(VerifiedLinkFiles.AndroidApp(package: package, sha256CertFingerprints: fingerprints))
        }
    }

    /// The apple-app-site-association body, or `nil` (404) when no iOS app is configured.
    public var appleAppSiteAssociation: String? { VerifiedLinkFiles.appleAppSiteAssociation(appIDs: iosAppIDs) }

    /// The assetlinks.json body, or `nil` (404) when no Android app is configured.
    public var assetLinks: String? { VerifiedLinkFiles.assetLinks(apps: androidApps) }

    private static func strings(_ value: JSONValue?, field: String) throws(LinkValidationError) -> [String] {
        guard let value, value != .null else { return [] }
        guard case .array(let items) = value else {
            throw LinkValidationError(field: field, reason: "must be an array of strings")
        }
        var strings: [String] = []
        for (index, item) in items.enumerated() {
            guard let string = item.stringValue, !string.isEmpty else {
                throw LinkValidationError(field: "\(field)[\(index)]", reason: "must be a non-empty string")
            }
            strings.append(string)
        }
        return strings
    }
}
