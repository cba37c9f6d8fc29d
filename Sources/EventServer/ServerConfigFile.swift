import Foundation
import MeasurementEvents

/// The JSON file of `alstats serve --config FILE`: an object whose members each concern reads
/// (`write_keys`, `read_keys`, `admin_keys`; the links and upload features add theirs).
public struct ServerConfigFile: Sendable {
    /// The file's path, for messages.
    public let path: String
    /// The top-level object.
    public let object: JSONObject

    /// Reads and parses `path`.
    /// - Throws: ``EventServerError`` (configuration) when the file is missing, unreadable or not a JSON object.
    public static func read(_ path: String) throws(EventServerError) -> ServerConfigFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .configuration("cannot read the config file \(path): check the path and its permissions")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw .configuration("the config file \(path) is not valid JSON: \(error.description)")
        }
        guard case .object(let object) = value else {
            throw .configuration("the config file \(path) must hold a JSON object such as {\"write_keys\": [\"...\"]}")
        }
        return ServerConfigFile(path: path, object: object)
    }

    /// The strings of the array member `name` (empty when absent).
    /// - Throws: ``EventServerError`` (configuration) when the member is not an array of strings.
    public func strings(_ name: String) throws(EventServerError) -> [String] {
        guard let member = object[name], member != .null else { return [] }
        guard case .array(let items) = member else {
            throw .configuration("\"\(name)\" in \(path) must be an array of strings")
        }
        var strings: [String] = []
        for item in items {
            guard let text = item.stringValue else {
                throw .configuration("\"\(name)\" in \(path) must be an array of strings")
            }
            strings.append(text)
        }
        return strings
    }

    /// The duration of the member `name` (`90s`, `15m`, `24h`, `7d`: a whole number and one unit), or `nil` when
    /// absent.
    /// - Throws: ``EventServerError`` (configuration) when the member is not such a duration, or is zero.
    public func duration(_ name: String) throws(EventServerError) -> Duration? {
        guard let member = object[name], member != .null else { return nil }
        guard let text = member.stringValue, let duration = Self.duration(text), duration > .zero else {
            throw .configuration(
                "\"\(name)\" in \(path) must be a duration such as \"90s\", \"15m\", \"24h\" or \"7d\"")
        }
        return duration
    }

    /// `90s`, `15m`, `24h` or `7d` as a duration; `nil` for any other text.
    static func duration(_ text: String) -> Duration? {
        let units: [(Character, Int64)] = [("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400)]
        guard let unit = text.last, let seconds = units.first(where: { $0.0 == unit })?.1,
            let count = Int64(text.dropLast()), count >= 0, count < 1 << 32
        else { return nil }
        return .seconds(count * seconds)
    }
}
