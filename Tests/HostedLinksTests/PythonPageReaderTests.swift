import AppLinks
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import HostedLinks

/// The page read by a second, independent parser: Python's html.parser via `.ci/links_page.py`.
@Suite struct PythonPageReaderTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = root.appendingPathComponent(".ci/links_page.py").path
    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    // Under CI the tool is required: the test runs and fails without it instead of skipping.
    @Test(.enabled(if: python != nil || BuiltAlstats.isCI, "needs python3"))
    func pythonReadsTheSameTagsAndNothingHostile() throws {
        let hostile = #"\"><script>alert('x')</script>"#
        let link = try HostedLink(
            json: JSONValue.parse(
                #"""
                {"slug":"a","title":"\#(hostile)","image":"https://i.example/\#(hostile)",
                 "ios":[{"url":"x://y?q=\#(hostile)","app_store_id":"1","app_name":"\#(hostile)"}],
                 "android":[{"package":"p","url":"x://z#f","app_name":"A"}],
                 "web":{"url":"https://a.example/?a=1&b=2","should_fallback":false},"pass_query":["q"]}
                """#))
        let page = HostedLinkPage(
            link: link, publicURL: "https://g", query: [("q", #"'"><b onmouseover=x>"#), ("ref", "javascript:x")])
        let html = page.html()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("links-page-\(UUID()).html")
        try html.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        let result = try ProcessRunner.run(try #require(Self.python), [Self.script, file.path])
        #expect(result.status == 0, "\(result.errors)")

        // The page an iPhone gets, with an image on the page's own origin: still nothing hostile, nothing loaded
        // from elsewhere.
        var own = link
        own.image = "https://g/i.png"
        let phone = HostedLinkPage(link: own, publicURL: "https://g", query: []).html(platform: .ios)
        try phone.write(to: file, atomically: true, encoding: .utf8)
        let phoneResult = try ProcessRunner.run(try #require(Self.python), [Self.script, file.path, "https://g"])
        #expect(phoneResult.status == 0, "\(phoneResult.errors)")
        let elsewhere = try ProcessRunner.run(try #require(Self.python), [Self.script, file.path, "https://h"])
        #expect(elsewhere.status == 1, "an image of another origin is refused")
        try html.write(to: file, atomically: true, encoding: .utf8)

        let read = try JSONValue.parse(result.output)
        let ours: [JSONValue] = MetaTagParser.metaTags(in: html).map { [.string($0.property), .optional($0.content)] }
        #expect(read["meta"] == .array(ours))
        guard case .array(let hrefs)? = read["hrefs"] else {
            Issue.record("no hrefs")
            return
        }
        // A visitor of no known platform: the web first, then open in the iOS app, the App Store, open in the
        // Android app, Google Play.
        #expect(hrefs.count == 5)
        #expect(
            hrefs.first == .string("https://a.example/?a=1&b=2&q=%27%22%3E%3Cb%20onmouseover%3Dx%3E&ref=javascript%3Ax")
        )
    }
}

extension JSONValue {
    fileprivate static func optional(_ string: String?) -> JSONValue { string.map { .string($0) } ?? .null }
}
