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

    @Test func theServeConfigGivesBothFiles() throws {
        let config = try VerifiedLinkConfig(
            json: JSONValue.parse(
                #"""
                {"write_keys": ["k"], "ios_app_ids": ["T.com.a"],
                 "android_apps": [{"package": "com.a", "sha256_cert_fingerprints": ["AB:CD"]}]}
                """#))
        #expect(config.iosAppIDs == ["T.com.a"] && config.androidApps.map(\.package) == ["com.a"])
        #expect(config.appleAppSiteAssociation != nil && config.assetLinks?.contains("com.a") == true)
        let none = try VerifiedLinkConfig(json: JSONValue.parse(#"{"write_keys": ["k"]}"#))
        #expect(none.appleAppSiteAssociation == nil && none.assetLinks == nil)
    }

    @Test(arguments: [
        (#"{"ios_app_ids": "T.com.a"}"#, "ios_app_ids"),
        (#"{"ios_app_ids": [""]}"#, "ios_app_ids[0]"),
        (#"{"android_apps": {}}"#, "android_apps"),
        (#"{"android_apps": [{"sha256_cert_fingerprints": ["AB"]}]}"#, "android_apps[0].package"),
        (#"{"android_apps": [{"package": "p"}]}"#, "android_apps[0].sha256_cert_fingerprints"),
    ])
    func aBadConfigNamesItsField(json: String, field: String) throws {
        let value = try JSONValue.parse(json)
        #expect(throws: LinkValidationError.self) { try VerifiedLinkConfig(json: value) }
        do { _ = try VerifiedLinkConfig(json: value) } catch { #expect(error.field == field) }
    }
}
