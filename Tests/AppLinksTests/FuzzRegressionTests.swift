import AppLinks
import Foundation
import Testing

/// Replays every input kept in Regressions/ (inputs that crashed a fuzz target once, and hand-written
/// nasty seeds) through the same checks as the fuzz targets in Fuzz/.
struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Regressions")

    static func inputs(_ target: String) -> [String] {
        let folder = directory.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    static func bytes(_ target: String, _ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(target).appendingPathComponent(name)))
    }

    @Test func everyTargetHasRegressionInputs() {
        #expect(!Self.inputs("InboundURL").isEmpty)
        #expect(!Self.inputs("MetaTags").isEmpty)
    }

    @Test(arguments: inputs("InboundURL"))
    func inboundURLInputsDoNotCrash(name: String) throws {
        let text = String(decoding: try Self.bytes("InboundURL", name), as: UTF8.self)
        let link = AppLinkURL(parsing: text)
        _ = link.event(sourceApplication: "fuzz")
        if link.rejection != nil {
            #expect(!link.isAppLink && link.targetURL == text && link.appLinkData == nil)
        }
        if let back = AppLinkReturnToReferer(inbound: link) { _ = back.plan { _ in true } }
        #expect(QueryParameters.parse("v=" + QueryParameters.encode(text))["v"] == text)
        if !text.isEmpty {
            let navigation = AppLinkNavigation(
                appLink: AppLink(
                    sourceURL: URL(string: "https://example.com/p")!,
                    targets: [AppLinkTarget(url: URL(string: "app://x"))], webURL: nil),
                extras: ["note": .string(text)], appLinkData: ["ref": .string(text)])
            let sent = try #require(navigation.plan { _ in true }.url)
            let received = AppLinkURL(parsing: sent.absoluteString)
            #expect(received.ref == text)
            #expect(received.appLinkExtras?["note"] == .string(text))
        }
    }

    @Test(arguments: inputs("MetaTags"))
    func metaTagInputsDoNotCrash(name: String) throws {
        let bytes = try Self.bytes("MetaTags", name)
        let tags = MetaTagParser.metaTags(in: bytes)
        #expect(tags.count <= bytes.count)
        let metadata = AppLinkMetadata(tags: tags)
        for platform in AppLinkPlatform.allCases {
            let link = metadata.appLink(sourceURL: URL(string: "https://example.com/page")!, platform: platform)
            _ = AppLinkNavigation(appLink: link).plan { _ in true }
        }
    }
}
