import AppLinks
import Foundation
import MeasurementEvents
import TestSupport
import Testing

/// The app's side of the install path (docs/install.md): the click token taken from an install referrer or a
/// pasteboard and nothing else, the deferred link of a claim's answer and its `al_nav_in`, and the install's state
/// (`alstats_first_open` once, attributed or not).
@Suite struct DeferredAppLinkTests {
    static let token = "3q2-7w_AAAAAAAAAAAAAAQ"

    @Test(
        arguments: [
            ("alstats_click=\(token)&utm_source=alstats&utm_medium=link&utm_campaign=invite", token),
            ("utm_source=alstats&alstats_click=\(token)", token),
            ("alstats_click=\(token.dropLast())", nil), ("alstats_click=%3Cscript%3E", nil),
            ("utm_source=google-play&utm_medium=organic", nil), ("", nil), ("alstats_click", nil),
            ("https://go.example.com/l/invite?alstats_click=\(token)", nil),
        ] as [(String, String?)])
    func aReferrerGivesItsAlstatsClickOnlyWhenItIsAToken(referrer: String, token: String?) {
        #expect(DeferredAppLink.clickToken(installReferrer: referrer) == token)
    }

    @Test(
        arguments: [
            ("https://go.example.com/l/invite?alstats_click=\(token)", token),
            ("  http://GO.example.com/l/invite?ref=mail&alstats_click=\(token)\n", token),
            ("https://go.example.com.evil.example/l/invite?alstats_click=\(token)", nil),
            ("https://evil.example/l/invite?alstats_click=\(token)", nil),
            ("https://user:pw@go.example.com/l/invite?alstats_click=\(token)", nil),
            ("https://go.example.com/invite?alstats_click=\(token)", nil),
            ("https://go.example.com/l/invite?alstats_click=short", nil),
            ("https://go.example.com/l/invite", nil), ("javascript:alert(1)//go.example.com/l/", nil),
            ("Milk, eggs, bread", nil), ("", nil),
        ] as [(String, String?)])
    func aPasteboardGivesATokenOnlyFromAURLOfTheLinkHost(text: String, token: String?) {
        #expect(DeferredAppLink.clickToken(pasteboard: text, linkHost: "go.example.com") == token)
    }

    @Test func anAnswerWithoutItsMembersIsABadAnswer() throws {
        let valid: JSONObject = [
            "slug": "invite", "url": .null, "ref": .null, "query": [:], "clicked_at": "2025-11-21T10:00:00Z",
            "delay_ms": 5,
        ]
        let link = try DeferredAppLink(answer: .object(valid))
        #expect(link.url == nil && link.ref == nil && link.clickedAt == 1_763_719_200_000)
        #expect(link.event() == nil, "nothing to open, nothing posted")
        for (member, value) in [("slug", JSONValue.null), ("clicked_at", "yesterday"), ("delay_ms", "5")] {
            var broken = valid
            broken[member] = value
            #expect(throws: DeferredLinkError.self) { try DeferredAppLink(answer: .object(broken)) }
        }
    }

    @Test func openingADeferredLinkPostsAlNavInAtTheLinkMarkedDeferred() {
        let recorder = EventRecorder()
        let data = encoded(#"{"target_url":"https://go.example.com/l/invite?ref=mail","version":"1.0"}"#)
        let link = DeferredAppLink(
            slug: "invite", url: "couchin://invite?ref=mail&al_applink_data=\(data)", ref: "mail",
            clickedAt: 0, delayMilliseconds: 60_000)
        link.recordOpen(on: recorder.bus)
        let events = recorder.events()
        #expect(events.count == 1 && events.first?.name == EventName.navIn)
        let fields = events.first?.fields ?? [:]
        #expect(fields[FieldName.deferred] == "1" && fields[FieldName.ref] == "mail")
        #expect(fields[FieldName.targetURL] == "https://go.example.com/l/invite?ref=mail")
        #expect(fields[FieldName.inputURL] == link.url && fields[FieldName.version] == "1.0")
    }

    @Test func anInstallKeepsOneRandomIDAndRecordsItsFirstOpenOnceAttributedOrNot() throws {
        let folder = TemporaryDatabase()
        let path = folder.file("install.json")
        let install = try AppInstall(stateFile: path)
        #expect(UUID(uuidString: install.id) != nil && install.claim == .pending)
        #expect(try AppInstall(stateFile: path).id == install.id, "the same install after a restart")
        #expect(try AppInstall(stateFile: folder.file("other.json")).id != install.id)

        let recorder = EventRecorder()
        #expect(try install.recordFirstOpen(on: recorder.bus))
        #expect(try !AppInstall(stateFile: path).recordFirstOpen(on: recorder.bus), "once per install")
        #expect(recorder.events().map(\.fields) == [["attributed": "0"]])
        #expect(recorder.events().map(\.name) == [EventName.firstOpen])

        let stored = try JSONValue.parse(String(decoding: TemporaryDatabase.bytes(path), as: UTF8.self))
        guard case .object(let members) = stored else {
            Issue.record("the state file is not a JSON object")
            return
        }
        #expect(Set(members.map(\.key)) == ["install", "claim", "first_open"], "nothing but the install's state")

        try "{\"install\": 3}".write(toFile: folder.file("broken.json"), atomically: true, encoding: .utf8)
        #expect(throws: DeferredLinkError.self) { try AppInstall(stateFile: folder.file("broken.json")) }
        #expect(throws: DeferredLinkError.self) { try AppInstall(stateFile: folder.file("missing/install.json")) }
    }
}
