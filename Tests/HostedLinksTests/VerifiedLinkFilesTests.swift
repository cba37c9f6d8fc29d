import MeasurementEvents
import Testing

@testable import HostedLinks

@Suite struct VerifiedLinkFilesTests {
    @Test func appleAppSiteAssociation() throws {
        #expect(VerifiedLinkFiles.appleAppSiteAssociation(appIDs: []) == nil)
        let text = try #require(VerifiedLinkFiles.appleAppSiteAssociation(appIDs: ["ABCDE12345.com.example.app"]))
        let expected: JSONValue = [
            "applinks": ["details": [["appIDs": ["ABCDE12345.com.example.app"], "components": [["/": "/l/*"]]]]]
        ]
        #expect(try JSONValue.parse(text) == expected)
    }

    @Test func assetLinks() throws {
        #expect(VerifiedLinkFiles.assetLinks(apps: []) == nil)
        let app = VerifiedLinkFiles.AndroidApp(package: "com.example", sha256CertFingerprints: ["AB:CD"])
        let text = try #require(VerifiedLinkFiles.assetLinks(apps: [app]))
        let expected: JSONValue = [
            [
                "relation": ["delegate_permission/common.handle_all_urls"],
                "target": [
                    "namespace": "android_app", "package_name": "com.example", "sha256_cert_fingerprints": ["AB:CD"],
                ],
            ]
        ]
        #expect(try JSONValue.parse(text) == expected)
    }
}
