import AppLinks
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventUpload

/// The claim of a click over the uploader's transport (docs/install.md): what is sent (the token and the install id,
/// nothing else of what the platform gave), each answer's outcome, a lost answer retried with the same install, and
/// one claim per install whatever happens next.
@Suite struct DeferredLinkClaimTests {
    static let token = "3q2-7w_AAAAAAAAAAAAAAQ"
    static let answer = #"""
        {"slug":"invite","url":"couchin://invite?ref=mail","ref":"mail","query":{},"clicked_at":"2025-11-21T00:00:00.000Z","delay_ms":60000}
        """#

    static func claim(
        _ install: AppInstall, _ transport: ScriptedTransport, clock: ManualUploadClock = ManualUploadClock()
    ) -> DeferredLinkClaim {
        DeferredLinkClaim(
            .init(collector: URL(string: "http://collector.example:8080")!, writeKey: "w1"), install: install,
            transport: transport, clock: clock, random: FixedRandom(unit: 0.5))
    }

    @Test func aReferrersTokenIsClaimedOnceAndALostAnswerIsRetriedWithTheSameInstall() async throws {
        let folder = TemporaryDatabase()
        let install = try AppInstall(stateFile: folder.file("install.json"))
        let transport = ScriptedTransport([.networkError, .status(503), .status(200, body: Self.answer)])
        let clock = ManualUploadClock()
        let referrer = "alstats_click=\(Self.token)&utm_source=alstats&utm_medium=link&utm_campaign=invite"
        let outcome = try await Self.claim(install, transport, clock: clock).claim(installReferrer: referrer)
        #expect(outcome.link?.slug == "invite" && outcome.link?.url == "couchin://invite?ref=mail")
        #expect(clock.sleeps.count == 2, "two lost answers, two waits")
        let sent = transport.requests.map(\.lines)
        #expect(sent.count == 3 && Set(sent.map { $0.joined() }).count == 1, "the same claim each time")
        let body = try JSONValue.parse(try #require(sent.first?.first))
        #expect(body == .object(["click": .string(Self.token), "install": .string(install.id), "platform": "android"]))
        #expect(transport.requests.allSatisfy { $0.writeKey == "w1" })

        #expect(install.claim == .attributed)
        let again = try AppInstall(stateFile: folder.file("install.json"))
        #expect(try await Self.claim(again, transport).claim(installReferrer: referrer) == .claimedBefore)
        #expect(transport.requests.count == 3, "a finished claim is never sent again")
        let recorder = MemoryEventSink()
        let bus = MeasurementEventBus()
        bus.attach(recorder)
        #expect(try again.recordFirstOpen(on: bus))
        await bus.flush()
        #expect(recorder.events.map(\.fields) == [["attributed": "1"]])
    }

    @Test(arguments: [
        (ScriptedTransport.Reply.status(204), DeferredLinkClaim.Outcome.noClick),
        (.status(404, body: #"{"code":"unknown_click"}"#), .unknownClick),
        (.status(404, body: #"{"code":"expired_click"}"#), .expiredClick),
        (.status(409, body: #"{"code":"already_claimed"}"#), .claimedByAnother),
    ])
    func eachAnswerOfTheTableIsAnOutcomeAndLeavesTheInstallUnattributed(
        reply: ScriptedTransport.Reply, expected: DeferredLinkClaim.Outcome
    ) async throws {
        let install = AppInstall(id: "install-1")
        let pasteboard = "https://go.example.com/l/invite?alstats_click=\(Self.token)"
        let outcome = try await Self.claim(install, ScriptedTransport([reply]))
            .claim(pasteboard: pasteboard, linkHost: "go.example.com")
        #expect(outcome == expected && install.claim == .unattributed)
    }

    @Test func whatIsNotALinkOfOursIsNotSentAndTheInstallIsReportedAsOrganic() async throws {
        let transport = ScriptedTransport([.status(204)])
        let install = AppInstall(id: "install-2")
        let outcome = try await Self.claim(install, transport)
            .claim(pasteboard: "call mum at 555-0100", linkHost: "go.example.com")
        #expect(outcome == .noClick)
        let body = try JSONValue.parse(try #require(transport.requests.first?.lines.first))
        #expect(body == .object(["install": "install-2", "platform": "ios"]), "nothing of the pasteboard is sent")
    }

    @Test func aRefusedKeyOrAnUnreachableCollectorThrowsAndTheNextLaunchClaimsAgain() async throws {
        let install = AppInstall(id: "install-3")
        await #expect(throws: DeferredLinkError.refused(status: 401)) {
            try await Self.claim(install, ScriptedTransport([.status(401)])).claim(Self.token, platform: .ios)
        }
        #expect(install.claim == .pending)
        let down = ScriptedTransport([.networkError])
        await #expect(throws: DeferredLinkError.self) {
            try await Self.claim(install, down).claim(Self.token, platform: .ios)
        }
        #expect(down.requests.count > 3 && install.claim == .pending, "retried until the give-up time, then pending")
        await #expect(throws: DeferredLinkError.self) {
            try await Self.claim(install, ScriptedTransport([.status(400, body: #"{"code":"bad_install"}"#)]))
                .claim(Self.token, platform: .ios)
        }
        let outcome = try await Self.claim(install, ScriptedTransport([.status(200, body: Self.answer)]))
            .claim(Self.token, platform: .ios)
        #expect(outcome.link != nil && install.claim == .attributed)
    }
}
