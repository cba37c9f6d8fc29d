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
}
