import MeasurementEvents

extension JSONValue {
    /// Indented JSON with sorted keys, for the link debugger's `--format json`.
    func prettyText(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .array(let values) where !values.isEmpty:
            return "[\n" + values.map { inner + $0.prettyText(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let object) where !object.isEmpty:
            let members = object.members.sorted { $0.key < $1.key }.map { member -> String in
                var key = ""
                JSONValue.writeString(member.key, to: &key)
                return inner + key + ": " + member.value.prettyText(indent: inner)
            }
            return "{\n" + members.joined(separator: ",\n") + "\n\(indent)}"
        default:
            return jsonText()
        }
    }

    /// A string value, or `null` for `nil`.
    static func optional(_ string: String?) -> JSONValue {
        string.map { .string($0) } ?? .null
    }

    /// An object of string values.
    static func strings(_ dictionary: [String: String]) -> JSONValue {
        .object(JSONObject(dictionary.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
    }
}
