import Foundation

extension LinkChecker {
    /// Android: `/.well-known/assetlinks.json` answered 200 directly, `Content-Type: application/json`, a list whose
    /// statements grant `delegate_permission/common.handle_all_urls` to an `android_app` with a package name and
    /// SHA-256 fingerprints of 32 colon-separated hex pairs. It opens when one app has a well-formed fingerprint
    /// (which of them signs the installed app, and the app's intent filter, only the device knows).
    func androidVerdict(for url: URL) async -> LinkCheckReport.Verdict {
        let notes = Self.httpNote(url, "Android")
        let links: AssetLinks
        switch await associationFile("assetlinks.json", of: url, limit: Self.pageLimit, needsJSONType: true) {
        case .failure(let unreadable): return .init(reasons: [unreadable.reason], notes: notes)
        case .success(let (json, _)):
            do throws(AssetLinks.Problem) {
                links = try AssetLinks(json: json)
            } catch {
                return .init(reasons: ["assetlinks.json " + error.description], notes: notes)
            }
        }
        return Self.androidVerdict(links, notes: notes)
    }

    /// The verdict of statements already read.
    static func androidVerdict(_ links: AssetLinks, notes: [String] = []) -> LinkCheckReport.Verdict {
        let problems = links.problems.map { "assetlinks.json: " + $0 }
        guard links.apps.contains(where: { !$0.fingerprints.isEmpty }) else {
            let none =
                links.apps.isEmpty
                ? ["assetlinks.json grants no app \(AssetLinks.handleAllURLs) with a package and its fingerprints"]
                : []
            return .init(apps: links.packages, reasons: problems.isEmpty ? none : problems, notes: notes)
        }
        return .init(apps: links.packages, notes: notes + problems)
    }
}
