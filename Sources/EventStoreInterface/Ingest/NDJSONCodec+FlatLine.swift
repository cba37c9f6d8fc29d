import MeasurementEvents

extension NDJSONCodec {
    /// The event of a line in the shape exports and SDKs write, read in one pass without a ``JSONValue`` tree:
    /// an object whose members are only `id` (a string or `null`), `name` (a string), `ts` (a number or a
    /// string) and `fields` (`null`, or an object whose values are all strings), within the limits.
    ///
    /// `nil` for any other line: another member, a nested or non-string field value, a limit broken, bad
    /// JSON. ``decodeTree(utf8:truncatedValues:)`` then reads it, so a line gives the same event or the same
    /// error either way; `truncatedValues` changes only when an event is returned.
    package func decodeFlat(utf8 bytes: UnsafeBufferPointer<UInt8>, truncatedValues: inout Int) -> MeasurementEvent? {
        var parser = JSONParser(bytes: bytes)
        var name: String?
        var timestamp: JSONValue?
        var id: String?
        var fields: [String: String] = [:]
        var hasAlias = false
        parser.skipSpace()
        guard parser.take(UInt8(ascii: "{")) else { return nil }
        // Members in any order; a repeated one keeps its last value, as in the tree (`JSONObject`).
        repeat {
            guard let key = try? parser.parseMemberKey() else { return nil }
            switch (key, parser.next ?? 0) {
            case ("name", UInt8(ascii: "\"")):
                name = try? parser.parseString()
                guard name != nil else { return nil }
            case ("ts", UInt8(ascii: "\"")), ("ts", UInt8(ascii: "-")), ("ts", UInt8(ascii: "0")...UInt8(ascii: "9")):
                timestamp = try? parser.parseValue(depth: 0)
                guard timestamp != nil else { return nil }
            case ("id", UInt8(ascii: "\"")):
                id = try? parser.parseString()
                guard id != nil else { return nil }
            case ("id", UInt8(ascii: "n")):
                guard (try? parser.expect("null")) != nil else { return nil }
                id = nil
            case ("fields", UInt8(ascii: "{")):
                guard let strings = flatStringMembers(&parser, hasAlias: &hasAlias) else { return nil }
                fields = strings
            case ("fields", UInt8(ascii: "n")):
                guard (try? parser.expect("null")) != nil else { return nil }
                fields = [:]
            default:
                return nil
            }
            parser.skipSpace()
        } while parser.take(UInt8(ascii: ","))
        guard parser.take(UInt8(ascii: "}")) else { return nil }
        parser.skipSpace()
        guard parser.index == bytes.count, let name, !name.isEmpty, id.map({ !$0.isEmpty }) ?? true,
            let milliseconds = try? NDJSONCodec.milliseconds(timestamp),
            let checked = try? flattener.check(fields)
        else { return nil }
        var flat = checked.fields
        if hasAlias { NDJSONCodec.normaliseAliases(&flat) }
        truncatedValues += checked.truncatedValues
        let eventID = id.map(EventID.init) ?? NDJSONCodec.derivedID(name: name, timestamp: milliseconds, fields: flat)
        return MeasurementEvent(id: eventID, name: name, fields: flat, timestamp: milliseconds)
    }

    /// The members of the object at the parser (its `{`) when every value is a string: a repeated key keeps
    /// its last value; `nil` for any other value, bad JSON, more members than the limit, or two keys that
    /// `String` equality merges but whose bytes differ (which the tree's reader refuses by name). Sets
    /// `hasAlias` when a member may need ``normaliseAliases(_:)``.
    private func flatStringMembers(_ parser: inout JSONParser, hasAlias: inout Bool) -> [String: String]? {
        parser.index += 1  // {
        parser.skipSpace()
        if parser.take(UInt8(ascii: "}")) { return [:] }
        // Room for 12 fields in 16 buckets, made at once: an event has 7 to 9 as a rule. `reserveCapacity(16)` on an
        // empty dictionary went through a resize to 32 buckets: 1 to 3% of this reader's time on realistic lines.
        var members = [String: String](minimumCapacity: 12)
        repeat {
            guard let key = try? parser.parseMemberKey() else { return nil }
            guard parser.next == UInt8(ascii: "\""), let value = try? parser.parseString() else { return nil }
            guard NDJSONCodec.set(value, forKey: key, in: &members), members.count <= flattener.limits.maximumFields
            else { return nil }
            hasAlias = hasAlias || NDJSONCodec.mayNeedNormalising(key: key, value: value)
            parser.skipSpace()
        } while parser.take(UInt8(ascii: ","))
        return parser.take(UInt8(ascii: "}")) ? members : nil
    }
}

extension JSONParser {
    /// The byte at the reading position, `nil` at the end.
    fileprivate var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Steps over `byte` when it is next; whether it was.
    fileprivate mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }
}
