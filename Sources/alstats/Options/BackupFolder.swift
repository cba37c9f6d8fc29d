import EventStoreInterface
import Foundation
import HostedLinks
import MeasurementEvents

/// The folder `alstats backup` writes and `alstats restore` reads (docs/cli.md, "alstats backup"): `events.ndjson`,
/// every stored event as `alstats export` writes it, and `store.json`, what the report needs beyond the events:
///
///     {"alstats_backup": 1, "public_urls": ["https://go.example.com"], "links": [{...a link's JSON...}],
///      "completeness": [{"kind": "rejected", "reason": "invalid_event:bad_json", "day": "2025-11-21", "count": 2}]}
struct BackupFolder {
    /// The format's version, `alstats_backup` in `store.json`.
    static let version: Int64 = 1
    static let eventsFile = "events.ndjson"
    static let storeFile = "store.json"

    /// The hosted links, their public URLs and the completeness rows.
    var links: [HostedLink]
    var publicURLs: [LinkPublicURL]
    var completeness: [CompletenessRow]

    /// `store.json`'s text.
    var storeJSON: String {
        let rows = completeness.map { row -> JSONValue in
            [
                "kind": .string(row.kind), "reason": .string(row.reason),
                "day": .string(EventTime.date(days: row.day / 86_400_000)), "count": .int(Int64(row.count)),
            ]
        }
        let object: JSONValue = [
            "alstats_backup": .int(Self.version), "public_urls": .array(publicURLs.map { .string($0.text) }),
            "links": .array(links.map(\.jsonValue)), "completeness": .array(rows),
        ]
        return object.jsonText() + "\n"
    }

    /// Reads `store.json`'s `text`, every link validated as `alstats links put` validates it.
    /// - Throws: ``CLIFailure`` 65 naming what is not valid.
    init(storeJSON text: String, file: String) throws(CLIFailure) {
        func invalid(_ why: String) -> CLIFailure {
            CLIFailure(ExitStatus.dataError, "\(file): \(why): is it a store.json of `alstats backup`?")
        }
        guard let object = try? JSONValue.parse(text).objectValue else { throw invalid("not a JSON object") }
        guard object["alstats_backup"] == .int(Self.version) else {
            throw invalid("\"alstats_backup\" is not \(Self.version)")
        }
        guard case .array(let urls)? = object["public_urls"], case .array(let links)? = object["links"],
            case .array(let rows)? = object["completeness"]
        else { throw invalid("\"public_urls\", \"links\" and \"completeness\" must be arrays") }
        publicURLs = try urls.map { url throws(CLIFailure) in
            guard let text = url.stringValue, let parsed = LinkPublicURL(text) else {
                throw invalid("a public URL must be scheme://host[:port], not \(url.jsonText())")
            }
            return parsed
        }
        self.links = try links.map { link throws(CLIFailure) in
            do {
                return try HostedLink(json: link)
            } catch {
                throw invalid("invalid link: \(error)")
            }
        }
        completeness = try rows.map { row throws(CLIFailure) in
            guard let kind = row["kind"]?.stringValue, ["dropped", "rejected", "altered"].contains(kind),
                let reason = row["reason"]?.stringValue, !reason.isEmpty,
                let day = row["day"]?.stringValue.flatMap(EventTime.days(date:)), case .int(let count)? = row["count"],
                count >= 0
            else { throw invalid("a completeness row needs a kind, a reason, a day YYYY-MM-DD and a count") }
            return CompletenessRow(kind: kind, reason: reason, day: day * 86_400_000, count: Int(count))
        }
    }

    /// A backup of these parts.
    init(links: [HostedLink], publicURLs: [LinkPublicURL], completeness: [CompletenessRow]) {
        self.links = links
        self.publicURLs = publicURLs
        self.completeness = completeness
    }
}
