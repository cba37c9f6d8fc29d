import EventStore
import Foundation
import Logging
import MeasurementEvents

/// A swift-log handler writing one JSON object per line to stderr (`alstats serve --log-format json`):
/// `{"ts": "...", "level": "info", "label": "...", "message": "...", <metadata>...}`.
public struct JSONLogHandler: LogHandler {
    /// The logger's label.
    public let label: String
    /// The level below which nothing is written.
    public var logLevel: Logger.Level = .info
    /// Metadata added to every line.
    public var metadata: Logger.Metadata = [:]
    /// Task-local or constant metadata, added to every line.
    public var metadataProvider: Logger.MetadataProvider?

    /// A handler for `label` (the factory `LoggingSystem.bootstrap` takes).
    public init(label: String) { self.label = label }

    /// Metadata of this handler.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one JSON line.
    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        var members: [(String, JSONValue)] = [
            ("ts", .string(EventTime.rfc3339(milliseconds: SystemEventClock().nowMilliseconds()))),
            ("level", .string(event.level.rawValue)), ("label", .string(label)),
            ("message", .string(event.message.description)),
        ]
        for key in merged.keys.sorted() where !["ts", "level", "label", "message"].contains(key) {
            members.append((key, .string(merged[key]!.description)))
        }
        FileHandle.standardError.write(Data((JSONValue.object(JSONObject(members)).jsonText() + "\n").utf8))
    }
}
