import AppLinks
import Foundation
import MeasurementEvents

/// The installed app's claim of the click that brought it (docs/install.md): `POST /v1/deferred` on the collector,
/// over the uploader's transport, once per install.
///
/// The app hands in what the platform gives it: on Android the Play Store's install referrer, on iOS the
/// pasteboard's text (the page copied a URL with the click token when the person tapped its App Store button). Only
/// the token is taken from it (``DeferredAppLink/clickToken(installReferrer:)``,
/// ``DeferredAppLink/clickToken(pasteboard:linkHost:)``) and sent, with the install id and the platform; without
/// one, the claim still reports the install as organic. A lost answer (a network error, 408, 429, 5xx) is retried
/// with the same install id, on the uploader's backoff, until the policy's give-up time; the collector answers a
/// retried claim as it answered the first. The claim runs at most once per install: the ``AppInstall`` state file
/// records that it finished, and whether it found a link (``AppInstall/recordFirstOpen(on:)`` reads it).
///
/// ```swift
/// let install = try AppInstall(stateFile: stateFile)
/// let claim = DeferredLinkClaim(.init(collector: collectorURL, writeKey: key), install: install)
/// let outcome = try await claim.claim(installReferrer: referrer)       // Android
/// // let outcome = try await claim.claim(pasteboard: text, linkHost: "go.example.com")   // iOS
/// try install.recordFirstOpen()
/// if let link = outcome.link, let url = link.url { open(url); link.recordOpen() }
/// ```
public struct DeferredLinkClaim: Sendable {
    /// Where and how the claim is sent.
    public struct Configuration: Sendable {
        /// The collector: its base URL (`https://stats.example.com`, to which `/v1/deferred` is added) or the full URL
        /// of its claim endpoint.
        public var collector: URL
        /// The write key, sent as the HTTP Basic user name (as the uploader sends it).
        public var writeKey: String
        /// The retries of a lost answer; ``UploadPolicy/giveUpAfter`` (30 s by default here) bounds how long the claim
        /// waits before it throws ``DeferredLinkError/unreachable(_:)`` (then the next launch claims again).
        public var policy: UploadPolicy

        /// Creates a configuration.
        public init(collector: URL, writeKey: String, policy: UploadPolicy = UploadPolicy(giveUpAfter: .seconds(30))) {
            self.collector = collector
            self.writeKey = writeKey
            self.policy = policy
        }

        /// `URL/v1/deferred` for a URL without a path, else the URL as given.
        var endpoint: URL {
            guard collector.path.isEmpty || collector.path == "/" else { return collector }
            return collector.appendingPathComponent("v1").appendingPathComponent("deferred")
        }
    }

    /// What the claim found.
    public enum Outcome: Sendable, Hashable {
        /// The link the person clicked before installing: open its ``DeferredAppLink/url``.
        case link(DeferredAppLink)
        /// No click came with the install (an organic install, or a pasteboard without a link of ours).
        case noClick
        /// The click is unknown to the collector (never minted there, or deleted after its window).
        case unknownClick
        /// The click is older than the collector's claim window.
        case expiredClick
        /// Another install claimed the click first (the person shared the link on).
        case claimedByAnother
        /// This install's claim ran before: it runs once.
        case claimedBefore

        /// The link, for ``link(_:)``.
        public var link: DeferredAppLink? {
            if case .link(let link) = self { link } else { nil }
        }
    }

    /// The platform the app runs on, sent with the claim.
    public enum Platform: String, Sendable, Hashable {
        case ios, android
    }

    let configuration: Configuration
    let install: AppInstall
    let transport: any UploadTransport
    let clock: any UploadClock
    let random: any UploadRandomSource

    /// A claim for `install`, sent with `transport` (`AsyncHTTPClientUploadTransport` on Linux; the initializer without
    /// it sends with `URLSession` on Apple platforms).
    public init(
        _ configuration: Configuration, install: AppInstall, transport: any UploadTransport,
        clock: any UploadClock = SystemUploadClock(), random: any UploadRandomSource = SystemUploadRandom()
    ) {
        self.configuration = configuration
        self.install = install
        self.transport = transport
        self.clock = clock
        self.random = random
    }

    #if ALSTATS_URLSESSION || !Server
    /// A claim for `install`, sent with `URLSession` (Apple platforms).
    public init(
        _ configuration: Configuration, install: AppInstall, clock: any UploadClock = SystemUploadClock(),
        random: any UploadRandomSource = SystemUploadRandom()
    ) {
        self.init(
            configuration, install: install, transport: URLSessionUploadTransport(), clock: clock, random: random)
    }
    #endif

    /// Claims the click of a Play Store install referrer (Android): its token, if it has one.
    /// - Throws: ``DeferredLinkError`` (see ``claim(_:platform:)``).
    public func claim(installReferrer: String?) async throws(DeferredLinkError) -> Outcome {
        try await claim(installReferrer.flatMap(DeferredAppLink.clickToken(installReferrer:)), platform: .android)
    }

    /// Claims the click of the pasteboard's text (iOS): its token when it is a URL of `linkHost` with one.
    /// - Throws: ``DeferredLinkError`` (see ``claim(_:platform:)``).
    public func claim(pasteboard: String?, linkHost: String) async throws(DeferredLinkError) -> Outcome {
        let token = pasteboard.flatMap { DeferredAppLink.clickToken(pasteboard: $0, linkHost: linkHost) }
        return try await claim(token, platform: .ios)
    }

    /// Claims `token` (`nil`: reports an install without a click) for this install, once.
    /// - Returns: the outcome; ``Outcome/claimedBefore`` when this install's claim ran before (or runs now, from
    ///   another task).
    /// - Throws: ``DeferredLinkError``: `unreachable` after the policy's give-up time of retries, `refused` for a key
    ///   the collector refuses, `rejected` for a claim it refuses, `badAnswer`, `stateFile`. The claim then stays
    ///   pending: the next call (the next launch) makes it again, with the same install id.
    public func claim(_ token: String?, platform: Platform) async throws(DeferredLinkError) -> Outcome {
        guard install.beginClaim() else { return .claimedBefore }
        let outcome: Outcome
        do throws(DeferredLinkError) {
            outcome = try await send(token, platform: platform)
        } catch {
            try install.endClaim(.pending)
            throw error
        }
        try install.endClaim(outcome.link == nil ? .unattributed : .attributed)
        return outcome
    }

    /// Sends the claim until an answer that is not a lost one, within the policy's give-up time.
    private func send(_ token: String?, platform: Platform) async throws(DeferredLinkError) -> Outcome {
        var body: [(String, JSONValue)] = [("install", .string(install.id)), ("platform", .string(platform.rawValue))]
        if let token { body.insert(("click", .string(token)), at: 0) }
        // The uploader's wire: gzip of one NDJSON line, here the claim's JSON object.
        let compressed = Gzip.compress(Array(JSONValue.object(JSONObject(body)).jsonText().utf8))
        let schedule = RetrySchedule(policy: configuration.policy)
        let started = clock.now()
        var attempt = 0
        while true {
            let reason: String
            var retryAfter: Duration?
            do {
                let response = try await transport.send(
                    compressed, to: configuration.endpoint, writeKey: configuration.writeKey,
                    timeout: configuration.policy.requestTimeout)
                if let outcome = try Self.outcome(of: response) { return outcome }
                reason = "HTTP \(response.status)"
                retryAfter = response.retryAfter.flatMap { RetrySchedule.retryAfter($0, now: clock.now()) }
            } catch let error as DeferredLinkError {
                throw error
            } catch {
                reason = "\(error)"
            }
            let waited = clock.now().timeIntervalSince(started)
            if let limit = configuration.policy.giveUpAfter, Duration.seconds(waited) >= limit {
                throw .unreachable("no answer after \(Int(waited)) s of retries (\(reason))")
            }
            do {
                try await clock.sleep(
                    for: schedule.delay(attempt: attempt, retryAfter: retryAfter, unit: random.nextUnit()))
            } catch {
                throw .unreachable("cancelled while waiting to retry: \(reason)")
            }
            attempt += 1
        }
    }

    /// The outcome of an answer, or `nil` for a lost one to retry (408, 429, 5xx).
    static func outcome(of response: UploadResponse) throws(DeferredLinkError) -> Outcome? {
        let code = (try? JSONValue.parse(String(decoding: response.body, as: UTF8.self)))?["code"]?.stringValue
        switch response.status {
        case 200:
            guard let answer = try? JSONValue.parse(String(decoding: response.body, as: UTF8.self)) else {
                throw .badAnswer("the body is not JSON")
            }
            return .link(try DeferredAppLink(answer: answer))
        case 204: return .noClick
        case 404 where code == "expired_click": return .expiredClick
        case 404 where code == "unknown_click": return .unknownClick
        case 409: return .claimedByAnother
        case 401, 403: throw .refused(status: response.status)
        case 408, 429, 500...599: return nil
        default:
            throw .rejected(status: response.status, reason: code ?? "no code")
        }
    }
}
