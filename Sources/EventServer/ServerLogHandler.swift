import EventStoreInterface
import Foundation
import Logging
import MeasurementEvents

/// The swift-log handler of `alstats serve`: one line per entry, as text (`--log-format text`, laid out as
/// swift-log's `StreamLogHandler` lays it out) or as one JSON object (`--log-format json`), written through
/// a ``BufferedLogOutput`` (off the request path) or, without one, straight to stderr.
///
/// ```text
/// 2026-11-23T22:00:00.000Z info alstats.serve : method=GET path=/l/invite status=200 [EventServer] request
/// {"ts":"2026-11-23T22:00:00.000Z","level":"info","label":"alstats.serve","message":"request","method":"GET",...}
/// ```
public struct ServerLogHandler: LogHandler {
    /// How a line is laid out.
    public enum Format: Sendable {
        /// `TIME LEVEL LABEL : key=value ... [SOURCE] MESSAGE`.
        case text
        /// `{"ts": "...", "level": "...", "label": "...", "message": "...", <metadata>...}`.
        case json
    }

    /// The logger's label.
    public let label: String
    /// How lines are laid out.
    public let format: Format
    /// The level below which nothing is written.
    public var logLevel: Logger.Level = .info
    /// Metadata added to every line.
    public var metadata: Logger.Metadata = [:]
    /// Task-local or constant metadata, added to every line.
    public var metadataProvider: Logger.MetadataProvider?
    private let output: BufferedLogOutput?

    /// A handler for `label` (the factory `LoggingSystem.bootstrap` takes) writing `format` lines to `output`
    /// or, without one, straight to stderr.
    public init(label: String, format: Format, output: BufferedLogOutput? = nil) {
        self.label = label
        self.format = format
        self.output = output
    }

    /// Metadata of this handler.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one line.
    public func log(event: LogEvent) {
        let entries = sortedMetadata(of: event)
        let time = EventTime.rfc3339(milliseconds: SystemEventClock().nowMilliseconds())
        let line: String
        switch format {
        case .text:
            var text = time
            text.reserveCapacity(160)
            text += " "
            text += event.level.rawValue
            text += " "
            text += label
            text += " :"
            for (key, value) in entries {
                text += " "
                text += key
                text += "="
                text += value.description
            }
            text += " ["
            text += event.source
            text += "] "
            text += event.message.description
            line = text
        case .json:
            var members: [(String, JSONValue)] = [
                ("ts", .string(time)), ("level", .string(event.level.rawValue)), ("label", .string(label)),
                ("message", .string(event.message.description)),
            ]
            for (key, value) in entries where !["ts", "level", "label", "message"].contains(key) {
                members.append((key, .string(value.description)))
            }
            line = JSONValue.object(JSONObject(members)).jsonText()
        }
        if let output {
            output.write(line)
        } else {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    /// The handler's metadata, then the provider's, then the event's own (a later one wins), sorted by key. The
    /// request log's lines carry only their own: those are sorted as they are, without a merged copy.
    private func sortedMetadata(of event: LogEvent) -> [(key: String, value: Logger.Metadata.Value)] {
        let provided = metadataProvider?.get()
        guard !metadata.isEmpty || !(provided?.isEmpty ?? true) else {
            return (event.metadata ?? [:]).sorted { $0.key < $1.key }
        }
        // Plain loops, not `merge(_:uniquingKeysWith:)`: its generic path looked up tuple type metadata at
        // run time on every line (4% of the server under load).
        var merged = metadata
        if let provided { for (key, value) in provided { merged[key] = value } }
        if let own = event.metadata { for (key, value) in own { merged[key] = value } }
        return merged.sorted { $0.key < $1.key }
    }
}
