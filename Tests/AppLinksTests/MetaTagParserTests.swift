import AppLinks
import Testing

struct MetaTagParserTests {
    @Test(
        arguments: [
            (#"<meta property="al:ios:url" content="a://1">"#, [MetaTag(property: "al:ios:url", content: "a://1")]),
            (#"<meta property='al:ios:url' content='a://1'>"#, [MetaTag(property: "al:ios:url", content: "a://1")]),
            (#"<meta property=al:ios:url content=a://1>"#, [MetaTag(property: "al:ios:url", content: "a://1")]),
            (#"<META PROPERTY="al:ios:url" CONTENT="a://1"/>"#, [MetaTag(property: "al:ios:url", content: "a://1")]),
            (#"<meta content="a://1" property="al:ios:url" />"#, [MetaTag(property: "al:ios:url", content: "a://1")]),
            (#"<meta property="al:ios:url">"#, [MetaTag(property: "al:ios:url", content: nil)]),
            (#"<meta property="al:ios:url" content>"#, [MetaTag(property: "al:ios:url", content: nil)]),
            (#"<meta property="al:ios:url" content="">"#, [MetaTag(property: "al:ios:url", content: "")]),
            (#"<meta name="al:ios:url" content="a://1">"#, []),
            (
                #"<meta  property = "al:ios:url"  content = "a://1" >"#,
                [MetaTag(property: "al:ios:url", content: "a://1")]
            ),
            (
                #"<meta property="al:ios:url" content="a://1?x=1&amp;y=&#50;&#x33;&lt;&gt;&quot;&bogus;">"#,
                [MetaTag(property: "al:ios:url", content: #"a://1?x=1&y=23<>"&bogus;"#)]
            ),
            (
                #"<!-- <meta property="al:ios:url" content="hidden"> --><meta property="al:web:url" content="w">"#,
                [MetaTag(property: "al:web:url", content: "w")]
            ),
            (
                #"<script>var s = '<meta property="al:ios:url" content="x">';</script><meta property="a" content="b">"#,
                [MetaTag(property: "a", content: "b")]
            ),
            (#"<SCRIPT>x</Script ><meta property="a" content="b">"#, [MetaTag(property: "a", content: "b")]),
            (
                #"<meta property="a" content="1"><meta property="b" content="2"><meta property="a" content="3">"#,
                [
                    MetaTag(property: "a", content: "1"), MetaTag(property: "b", content: "2"),
                    MetaTag(property: "a", content: "3"),
                ]
            ),
            (#"<meta property="a" property="b" content="c">"#, [MetaTag(property: "a", content: "c")]),
            (#"<metadata property="a" content="b">"#, []),
            (
                #"<meta property="al:ios:app_name" content="Caf&#233; ☕">"#,
                [MetaTag(property: "al:ios:app_name", content: "Café ☕")]
            ),
        ] as [(String, [MetaTag])])
    func readsMetaPropertyTagsInDocumentOrder(html: String, expected: [MetaTag]) {
        #expect(MetaTagParser.metaTags(in: html) == expected)
    }

    @Test(arguments: [
        "", "<", "<<<<", "<meta", "<meta property", "<meta property=", "<meta property='al:ios:url", "<meta =x>",
        "<!--", "<!-- -", "<!", "</", "<script>", "<script><meta property='a' content='b'>",
        "<meta property=\"a\" content=\"&#",
        "&#xFFFFFFFF;", "<meta property=a content=&#xD800;>", "<meta property=a content=&#99999999999;>",
        "<meta/property=a/content=b>", String(repeating: "<meta property=", count: 2000), "\u{0}<\u{0}meta\u{0}>",
    ])
    func neverFailsOnMalformedHTML(html: String) {
        let tags = MetaTagParser.metaTags(in: html)
        #expect(tags.count <= html.utf8.count)
    }

    @Test func toleratesBytesThatAreNotUTF8() {
        let bytes: [UInt8] =
            Array(#"<meta property="al:ios:app_name" content=""#.utf8) + [0xFF, 0xFE] + Array(#"">"#.utf8)
        #expect(
            MetaTagParser.metaTags(in: bytes) == [MetaTag(property: "al:ios:app_name", content: "\u{FFFD}\u{FFFD}")])
    }

    @Test(arguments: [
        ("a&amp;b", "a&b"), ("&#38;", "&"), ("&#x26;", "&"), ("&#X26;", "&"), ("&#;", "&#;"), ("&#x;", "&#x;"),
        ("&amp", "&amp"), ("&&amp;", "&&"), ("&nbsp;", "\u{A0}"), ("&#xD800;", "\u{FFFD}"), ("&apos;", "'"),
    ])
    func decodesCharacterReferences(text: String, expected: String) {
        #expect(HTMLEntities.decode(text) == expected)
    }
}
