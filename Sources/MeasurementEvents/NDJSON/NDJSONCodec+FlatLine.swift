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
        // The members are read first and the dictionary made at their number: made for 12 and grown, a wide event's
        // (13 fields or more) hashed every key twice, 3% of the ingest reader's time on wide events. Past
        // `bufferedMembers` the rest go into the dictionary as it grows.
        return withUnsafeTemporaryAllocation(of: (String, String).self, capacity: Self.bufferedMembers) { buffer in
            var buffered = 0
            defer { buffer.baseAddress!.deinitialize(count: buffered) }
            var members: [String: String]?
            /// Moves the buffered members into `members`: `false` when one is refused (see ``set(_:forKey:in:)``).
            func takeBuffered(capacity: Int) -> Bool {
                var made = [String: String](minimumCapacity: capacity)
                var accepted = true
                for index in 0..<buffered {
                    let (key, value) = buffer.moveElement(from: index)
                    accepted = NDJSONCodec.set(value, forKey: key, in: &made) && accepted
                }
                buffered = 0
                members = made
                return accepted
            }
            repeat {
                guard let key = try? parser.parseMemberKey() else { return nil }
                guard parser.next == UInt8(ascii: "\""), let value = try? parser.parseString() else { return nil }
                hasAlias = hasAlias || NDJSONCodec.mayNeedNormalising(key: key, value: value)
                if members == nil, buffered < buffer.count {
                    buffer.initializeElement(at: buffered, to: (key, value))
                    buffered += 1
                } else {
                    if members == nil, !takeBuffered(capacity: 2 * buffered) { return nil }
                    guard NDJSONCodec.set(value, forKey: key, in: &members!) else { return nil }
                }
                guard (members?.count ?? 0) <= flattener.limits.maximumFields else { return nil }
                parser.skipSpace()
            } while parser.take(UInt8(ascii: ","))
            guard parser.take(UInt8(ascii: "}")) else { return nil }
            if members == nil, !takeBuffered(capacity: buffered) { return nil }
            guard let made = members, made.count <= flattener.limits.maximumFields else { return nil }
            return made
        }
    }

    /// The members ``flatStringMembers(_:hasAlias:)`` reads before it makes its dictionary.
    private static let bufferedMembers = 32
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
