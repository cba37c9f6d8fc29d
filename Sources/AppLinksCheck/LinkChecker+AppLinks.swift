import AppLinks
import Foundation

extension LinkChecker {
    /// App Links: the page's `al:*` tags as the App Link resolver reads them (fetched as it fetches, with
    /// `Prefer-Html-Meta-Tags: al` and its redirects), the targets per device kind and the web fallback; whether a
    /// plain request (a browser's) gets the same tags; and, when neither gets any, whether crawlers do.
    /// - Returns: the verdict, and whether the page could not be reached at all.
    func appLinksVerdict(for url: URL) async -> (LinkCheckReport.AppLinks, unreachable: Bool) {
        let resolver: LinkCheckResponse
        switch await page(url, headers: ["Prefer-Html-Meta-Tags": "al"]) {
        case .failure(let error):
            let unreachable: Bool = {
                switch error {
                case .network, .timedOut: return true
                default: return false
                }
            }()
            let reason = "the page \(url.absoluteString) could not be fetched: \(error.description)"
            return (.init(verdict: .init(reasons: [reason]), targets: [:], webURL: nil), unreachable)
        case .success(let response): resolver = response
        }
        guard (200..<300).contains(resolver.status) else {
            let reason = "the page answers HTTP \(resolver.status): App Links clients read the tags of a 2xx answer"
            return (.init(verdict: .init(reasons: [reason]), targets: [:], webURL: nil), false)
        }
        let metadata = AppLinkMetadata(html: resolver.body)
        let platforms: [AppLinkPlatform] = [.iphone, .ipad, .android]
        let targets = Dictionary(uniqueKeysWithValues: platforms.map { ($0, metadata.targets(for: $0)) })
        let webURL = metadata.webURL(sourceURL: url)
        var reasons: [String] = []
        var notes: [String] = []
        let plain = try? await page(url, headers: [:]).get()
        let plainTags = plain.map { AppLinkMetadata(html: $0.body) }
        if metadata.groups.isEmpty {
            reasons.append(await missingTags(url, resolverBody: resolver.body, plain: plainTags))
        } else if !targets.values.contains(where: { $0.contains { $0.url != nil } }) {
            reasons.append(
                "the page's al:* tags name no app URL: App Links clients can only go to the web; give al:ios:url "
                    + "(with al:ios:app_store_id) or al:android:url (with al:android:package)")
        }
        if let plainTags, !metadata.groups.isEmpty, plainTags != metadata {
            notes.append(
                plainTags.groups.isEmpty
                    ? "only requests with Prefer-Html-Meta-Tags: al get the al:* tags; a plain request (a browser's) "
                        + "gets none"
                    : "a plain request (a browser's) gets other al:* tags than a request with Prefer-Html-Meta-Tags: al"
            )
        }
        if webURL == nil { notes.append("al:web:should_fallback is false: without the app, the link goes nowhere") }
        let verdict = LinkCheckReport.Verdict(reasons: reasons, notes: notes)
        return (.init(verdict: verdict, targets: targets, webURL: webURL), false)
    }

    /// Why the page gave the resolver no `al:*` tags: a browser gets some, its tags are `name=` ones, crawlers get
    /// some, or it has none.
    private func missingTags(_ url: URL, resolverBody: [UInt8], plain: AppLinkMetadata?) async -> String {
        if let plain, !plain.groups.isEmpty {
            return "a request with Prefer-Html-Meta-Tags: al, as App Links clients send, gets no al:* tags, though a "
                + "plain request does: answer that header with the same tags (or ignore it)"
        }
        let text = String(decoding: resolverBody, as: UTF8.self).lowercased()
        if text.contains("name=\"al:") || text.contains("name='al:") || text.contains("name=al:") {
            return "the page's App Link tags use name=\"al:…\": App Links clients read only "
                + "<meta property=\"al:…\">"
        }
        let crawler = "\(userAgent) (facebookexternalhit/1.1; checking what crawlers get)"
        if let crawled = try? await page(url, headers: ["Prefer-Html-Meta-Tags": "al"], userAgent: crawler).get(),
            !AppLinkMetadata(html: crawled.body).groups.isEmpty
        {
            return "the page has al:* tags only for crawlers (a facebookexternalhit User-Agent): App Links clients "
                + "in apps fetch it with their own User-Agent and get none; serve the tags to every request"
        }
        return "the page has no al:* meta tags: App Links clients find no app to open; add "
            + "<meta property=\"al:ios:url\" ...> and <meta property=\"al:android:url\" ...> to its <head>"
    }

    /// The page, fetched as the App Link resolver fetches it (redirects followed, at most 1 MiB).
    private func page(
        _ url: URL, headers: [String: String], userAgent: String? = nil
    ) async -> Result<LinkCheckResponse, AppLinkError> {
        var headers = headers
        headers["User-Agent"] = userAgent ?? self.userAgent
        do throws(AppLinkError) {
            return .success(
                try await fetcher.get(url, headers: headers, followRedirects: true, maximumBytes: Self.pageLimit))
        } catch {
            return .failure(error)
        }
    }
}
