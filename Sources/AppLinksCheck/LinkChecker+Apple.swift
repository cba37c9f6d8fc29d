import Foundation

extension LinkChecker {
    /// iOS: `/.well-known/apple-app-site-association` answered 200 directly (no redirect), JSON, at most 128 KB; each
    /// app ID `TEAMID.bundle.id`; and which app's `components` (or legacy `paths`) claim the URL. The first rule of an
    /// app that matches decides for it; the apps that claim it are listed in the file's order.
    func appleVerdict(for url: URL) async -> LinkCheckReport.Verdict {
        let notes = Self.httpNote(url, "iOS")
        let file: AppleAppSiteAssociation
        switch await associationFile(
            "apple-app-site-association", of: url, limit: Self.associationFileLimit, needsJSONType: false)
        {
        case .failure(let unreadable): return .init(reasons: [unreadable.reason], notes: notes)
        case .success(let (json, _)):
            do throws(AppleAppSiteAssociation.Problem) {
                file = try AppleAppSiteAssociation(json: json)
            } catch {
                return .init(reasons: ["apple-app-site-association " + error.description], notes: notes)
            }
        }
        return Self.appleVerdict(file, for: url, notes: notes)
    }

    /// The verdict of an association file already read.
    static func appleVerdict(
        _ file: AppleAppSiteAssociation, for url: URL, notes: [String] = []
    ) -> LinkCheckReport.Verdict {
        let target = AASAURL(url)
        var apps: [String] = []
        var reasons: [String] = []
        var notes = notes + file.apps.flatMap(\.skipped).map { "apple-app-site-association: \($0), so it is skipped" }
        if file.apps.isEmpty {
            reasons.append(
                "apple-app-site-association lists no app in \"applinks.details\": add "
                    + #"{"appIDs": ["TEAMID.com.example.app"], "components": [{"/": "/*"}]}"#)
        }
        for app in file.apps {
            let valid = app.appIDs.filter(isAppID)
            var problems = app.appIDs.filter { !isAppID($0) }.map { id in
                "the app ID \"\(id)\" has no Team ID: write it as TEAMID.\(id), with the 10-character Team ID of "
                    + "the developer account (Membership details)"
            }
            if app.appIDs.isEmpty { problems.append("a details entry names no app: give it \"appIDs\"") }
            let names = valid.isEmpty ? "its app" : valid.joined(separator: ", ")
            switch app.match(target) {
            case .matched:
                apps += valid
                if !valid.isEmpty, app.components != nil, app.paths != nil {
                    notes.append("\(names): its legacy \"paths\" are ignored, as it has \"components\"")
                }
            case .excluded(let rule):
                problems.append("\(names) does not open \(target.display): it is excluded by \(rule)")
            case .unmatched(let rules):
                let shown =
                    rules.prefix(5).joined(separator: ", ") + (rules.count > 5 ? ", and \(rules.count - 5) more" : "")
                let listed = rules.isEmpty ? "it has no components and no paths" : "its rules: " + shown
                problems.append("\(names) does not claim \(target.display): no rule matches (\(listed))")
            }
            reasons += problems
        }
        guard apps.isEmpty else { return .init(apps: apps, notes: notes + reasons) }
        return .init(reasons: reasons, notes: notes)
    }

    /// `TEAMID.bundle.id`: a Team ID of 10 capital letters and digits, a dot, and a bundle ID.
    static func isAppID(_ text: String) -> Bool {
        guard let dot = text.firstIndex(of: "."), text.index(after: dot) < text.endIndex else { return false }
        let team = text[..<dot]
        return team.count == 10 && team.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
    }
}
