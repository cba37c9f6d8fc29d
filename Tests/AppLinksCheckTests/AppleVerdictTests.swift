import AppLinksCheck
import Foundation
import MeasurementEvents
import Testing

@testable import AppLinksCheck

/// An association file's verdict for a URL: the apps whose first matching rule claims it, or why none does.
struct AppleVerdictTests {
    static func verdict(_ file: String, _ url: String) throws -> LinkCheckReport.Verdict {
        let association = try AppleAppSiteAssociation(json: JSONValue.parse(file))
        return LinkChecker.appleVerdict(association, for: try #require(URL(string: url)))
    }

    @Test func theFirstMatchingComponentDecidesAndAnExcludeStopsTheApp() throws {
        let file = #"""
            {"applinks": {"details": [
              {"appIDs": ["ABCDE12345.com.example.app"],
               "components": [{"/": "/l/private*", "exclude": true, "comment": "not in the app"}, {"/": "/l/*"}]},
              {"appIDs": ["ABCDE12345.com.example.other"], "components": [{"/": "*"}]}]}}
            """#
        let open = try Self.verdict(file, "https://go.example.com/l/invite")
        #expect(open.ok && open.apps == ["ABCDE12345.com.example.app", "ABCDE12345.com.example.other"])
        let excluded = try Self.verdict(file, "https://go.example.com/l/private-party")
        #expect(excluded.ok && excluded.apps == ["ABCDE12345.com.example.other"])
        #expect(excluded.notes.contains { $0.contains("excluded by component 1") })
        let alone = try Self.verdict(
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/l/private*", "exclude": true}, {"/": "/l/*"}]}]}}"#,
            "https://go.example.com/l/private-party")
        #expect(!alone.ok && alone.apps.isEmpty)
        #expect(
            alone.reasons == [
                #"ABCDE12345.com.example.app does not open /l/private-party: it is excluded by component 1 {"/":"/l/private*","exclude":true}"#
            ])
    }

    @Test func legacyPathsMatchThePathOnlyWithNotExcludingAndAreIgnoredBesideComponents() throws {
        let legacy =
            #"{"applinks": {"apps": [], "details": [{"appID": "ABCDE12345.com.example.app", "paths": ["NOT /l/old*", "/l/*"]}]}}"#
        #expect(
            try Self.verdict(legacy, "https://go.example.com/l/new?x=/l/old#y").apps == ["ABCDE12345.com.example.app"])
        let old = try Self.verdict(legacy, "https://go.example.com/l/old-one")
        #expect(!old.ok && old.reasons.first?.contains(#"excluded by "NOT /l/old*" in its paths"#) == true)
        let both =
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "paths": ["*"], "components": [{"/": "/l/*"}]}]}}"#
        let outside = try Self.verdict(both, "https://go.example.com/m/x")
        #expect(
            !outside.ok
                && outside.reasons.first?.contains(#"no rule matches (its rules: component 1 {"/":"/l/*"})"#) == true)
    }

    @Test func anAppIDWithoutItsTeamIDNeverOpensAndSaysHowToWriteIt() throws {
        let verdict = try Self.verdict(
            #"{"applinks": {"details": [{"appIDs": ["com.example.app"], "components": [{"/": "*"}]}]}}"#,
            "https://go.example.com/l/x")
        #expect(!verdict.ok && verdict.apps.isEmpty)
        #expect(
            verdict.reasons.first?.hasPrefix(
                #"the app ID "com.example.app" has no Team ID: write it as TEAMID.com.example.app"#) == true)
        #expect(!LinkChecker.isAppID("abcde12345.com.example.app") && LinkChecker.isAppID("ABCDE12345.com.example.app"))
    }

    @Test(arguments: [
        (#"[1]"#, "is JSON but not an object"), (#"{"webcredentials": {}}"#, #"has no "applinks" object"#),
        (#"{"applinks": {"apps": []}}"#, #"has no "applinks.details" list"#),
    ])
    func aFileWithoutApplinksDetailsIsRefusedWithWhatToWrite(_ text: String, _ reason: String) throws {
        let error = #expect(throws: AppleAppSiteAssociation.Problem.self) {
            try AppleAppSiteAssociation(json: JSONValue.parse(text))
        }
        #expect(error?.description.hasPrefix(reason) == true, "\(String(describing: error))")
    }
}
