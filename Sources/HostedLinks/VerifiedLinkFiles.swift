import MeasurementEvents

/// The bodies of the verified-link files (docs/hosted-links.md, "On your own domain"):
/// `/.well-known/apple-app-site-association` for the configured `ios_app_ids` and `/.well-known/assetlinks.json` for
/// the `android_apps`; `nil` when not configured (the server answers 404).
///
/// ```swift
/// VerifiedLinkFiles.appleAppSiteAssociation(appIDs: ["TEAM.com.example.app"])
/// // {"applinks":{"details":[{"appIDs":["TEAM.com.example.app"],"components":[{"/":"/l/*"}]}]}}
/// ```
public enum VerifiedLinkFiles {
    /// An Android app allowed to open the links: its package and signing certificate fingerprints.
    public struct AndroidApp: Sendable, Hashable {
        /// The package name.
        public var package: String
        /// The SHA-256 fingerprints of its signing certificates (`AB:CD:...`).
        public var sha256CertFingerprints: [String]

        /// Creates an app entry.
        public init(package: String, sha256CertFingerprints: [String]) {
            self.package = package
            self.sha256CertFingerprints = sha256CertFingerprints
        }
    }

    /// The apple-app-site-association JSON letting `appIDs` open `/l/*`, or `nil` for none.
    public static func appleAppSiteAssociation(appIDs: [String]) -> String? {
        guard !appIDs.isEmpty else { return nil }
        let detail: JSONValue = ["appIDs": .array(appIDs.map { .string($0) }), "components": [["/": "/l/*"]]]
        let body: JSONValue = ["applinks": ["details": [detail]]]
        return body.jsonText()
    }

    /// The Digital Asset Links array granting `handle_all_urls` to `apps`, or `nil` for none.
    public static func assetLinks(apps: [AndroidApp]) -> String? {
        guard !apps.isEmpty else { return nil }
        let statements: [JSONValue] = apps.map { app in
            [
                "relation": ["delegate_permission/common.handle_all_urls"],
                "target": [
                    "namespace": "android_app", "package_name": .string(app.package),
                    "sha256_cert_fingerprints": .array(app.sha256CertFingerprints.map { .string($0) }),
                ],
            ]
        }
        return JSONValue.array(statements).jsonText()
    }
}
