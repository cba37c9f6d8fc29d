import AppLinksCheck
import MeasurementEvents
import Testing

@testable import AppLinksCheck

/// assetlinks.json as Android reads it: statements granting handle_all_urls to an android_app with a package and
/// well-formed SHA-256 fingerprints.
struct AssetLinksTests {
    static let fingerprint = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")

    static func statement(
        relation: String = AssetLinks.handleAllURLs, namespace: String = "android_app",
        package: String = "com.example.app", fingerprints: [String] = [fingerprint]
    ) -> String {
        let prints = fingerprints.map { "\"\($0)\"" }.joined(separator: ",")
        return
            #"{"relation": ["\#(relation)"], "target": {"namespace": "\#(namespace)", "package_name": "\#(package)", "sha256_cert_fingerprints": [\#(prints)]}}"#
    }

    static func verdict(_ statements: [String]) throws -> LinkCheckReport.Verdict {
        LinkChecker.androidVerdict(try AssetLinks(json: JSONValue.parse("[" + statements.joined(separator: ",") + "]")))
    }

    @Test func aStatementGrantingHandleAllURLsWithAWellFormedFingerprintOpens() throws {
        let verdict = try Self.verdict([Self.statement()])
        #expect(verdict.ok && verdict.apps == ["com.example.app"] && verdict.notes.isEmpty)
    }

    @Test(arguments: [
        (
            statement(fingerprints: ["14:6D:E9"]),
            #"fingerprint "14:6D:E9" of com.example.app is not 32 colon-separated hex pairs"#
        ),
        (
            statement(fingerprints: [fingerprint.replacingOccurrences(of: ":", with: "")]),
            "is not 32 colon-separated hex pairs"
        ),
        (statement(fingerprints: [String(fingerprint.dropLast()) + "G"]), "is not 32 colon-separated hex pairs"),
        (statement(fingerprints: []), #"lists no "sha256_cert_fingerprints""#),
        (
            statement(relation: "delegate_permission/common.get_login_creds"),
            #"grants "delegate_permission/common.get_login_creds", not delegate_permission/common.handle_all_urls"#
        ),
        (statement(namespace: "web"), #"target has "web": an app's target needs "namespace": "android_app""#),
        (statement(package: ""), #"has no "package_name""#),
        (statement(package: "example"), #""example" is not a package name"#),
    ])
    func aStatementThatCannotWorkSaysWhy(_ statement: String, _ reason: String) throws {
        let verdict = try Self.verdict([statement])
        #expect(!verdict.ok)
        #expect(verdict.reasons.contains { $0.contains(reason) }, "\(verdict.reasons)")
    }

    @Test func oneWorkingStatementOpensAndTheBrokenOnesBecomeNotes() throws {
        let verdict = try Self.verdict([
            Self.statement(package: "com.example.old", fingerprints: ["AB:CD"]), Self.statement(),
        ])
        #expect(verdict.ok && verdict.apps == ["com.example.old", "com.example.app"])
        #expect(verdict.notes.count == 1 && verdict.notes[0].contains("com.example.old"))
    }

    @Test func anEmptyListOrAnObjectIsNotAStatementList() throws {
        #expect(!(try Self.verdict([])).ok)
        #expect(throws: AssetLinks.Problem.self) { try AssetLinks(json: JSONValue.parse(#"{"relation": []}"#)) }
    }
}
