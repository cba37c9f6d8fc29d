extension NDJSONCodec {
    /// The event of a line read in one pass, without a ``JSONValue`` tree for the line: an object whose members are
    /// `id` (a string or `null`), `name` (a string), `ts` (a number or a string), `fields` (`null`, or an object)
    /// and any other key (skipped, as the tree skips it), within the limits. A field's value may be a string, a
    /// number, a boolean, `null`, or a nested object or array; the fields are flattened as ``Flattener`` does
    /// (only an event with a nested value builds that value's tree, and has its fields flattened by the flattener
    /// itself).
    ///
    /// `nil` for any other line (bad JSON, a member of another type, a limit broken, a repeated field met with a
    /// `null`): ``decodeTree(utf8:truncatedValues:)`` then reads it, so a line gives the same event or the same
    /// error either way; `truncatedValues` changes only when an event is returned.
    package func decodeFlat(utf8 bytes: UnsafeBufferPointer<UInt8>, truncatedValues: inout Int) -> MeasurementEvent? {
        var parser = JSONParser(bytes: bytes)
        var name: String?
        var timestamp: JSONValue?
        var id: String?
        var fields = FlatFields()
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
                guard let read = flatMembers(&parser) else { return nil }
                fields = read
            case ("fields", UInt8(ascii: "n")):
                guard (try? parser.expect("null")) != nil else { return nil }
                fields = FlatFields()
            case ("name", _), ("ts", _), ("id", _), ("fields", _):
                return nil  // a member of another type: the tree says why
            default:
                // Another key: ignored, as the tree ignores it, once its value is read whole.
                guard (try? parser.parseValue(depth: 1)) != nil else { return nil }
            }
            parser.skipSpace()
        } while parser.take(UInt8(ascii: ","))
        guard parser.take(UInt8(ascii: "}")) else { return nil }
        parser.skipSpace()
        // A NUL anywhere is the tree's to judge (`nul_character` when the event holds it).
        guard parser.index == bytes.count, !parser.decodedNUL, let name, !name.isEmpty, id.map({ !$0.isEmpty }) ?? true,
            let milliseconds = try? NDJSONCodec.milliseconds(timestamp),
            let checked = fields.flattened(by: flattener)
        else { return nil }
        var flat = checked.fields
        if fields.mayNeedNormalising { NDJSONCodec.normaliseAliases(&flat) }
        truncatedValues += checked.truncatedValues
        let eventID = id.map(EventID.init) ?? NDJSONCodec.derivedID(name: name, timestamp: milliseconds, fields: flat)
        return MeasurementEvent(id: eventID, name: name, fields: flat, timestamp: milliseconds)
    }

    /// The members of `fields` as ``decodeFlat(utf8:truncatedValues:)`` reads them: as flat text when every value
    /// is a scalar, else as an object for the flattener.
    fileprivate struct FlatFields {
        /// The members, each value as its flat text (a string as it is, a number in decimal, a boolean `1` or `0`).
        var strings: [String: String] = [:]
        /// The members in order, when one of them is a nested object or an array: the flattener flattens them.
        var object: JSONObject?
        /// Whether a member may be changed by ``NDJSONCodec/normaliseAliases(_:)``.
        var mayNeedNormalising = false

        /// The fields, flattened and checked against `flattener`'s limits; `nil` when a limit is broken.
        func flattened(by flattener: Flattener) -> FlattenedFields? {
            if let object { return try? flattener.flatten(object) }
            return try? flattener.check(strings)
        }
    }

    /// The members of the object at the parser (its `{`): scalars read as their flat text, nested values as trees;
    /// `nil` for bad JSON, more members than the limit, a repeated key met with `null` (the tree's last value decides
    /// whether the key stays), or two keys that `String` equality merges but whose bytes differ (which the tree's
    /// reader refuses by name).
    private func flatMembers(_ parser: inout JSONParser) -> FlatFields? {
        parser.index += 1  // {
        parser.skipSpace()
        var fields = FlatFields()
        if parser.take(UInt8(ascii: "}")) { return fields }
        // The members are read first and the dictionary made at their number: made for 12 and grown, a wide event's
        // (13 fields or more) hashed every key twice, 3% of the ingest reader's time on wide events.
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(Self.bufferedMembers)
        var nested = false
        var nulls = 0
        repeat {
            guard let key = try? parser.parseMemberKey() else { return nil }
            let value: JSONValue
            switch parser.next ?? 0 {
            case UInt8(ascii: "\""):
                guard let text = try? parser.parseString() else { return nil }
                fields.mayNeedNormalising =
                    fields.mayNeedNormalising || NDJSONCodec.mayNeedNormalising(key: key, value: text)
                value = .string(text)
            default:
                guard let read = try? parser.parseValue(depth: 2) else { return nil }
                switch read {
                case .object, .array: nested = true
                case .null:
                    // The tree refuses a key over the limit even when its `null` drops it (fuzzed).
                    guard key.utf8.count <= flattener.limits.maximumKeyBytes else { return nil }
                    nulls += 1
                default:
                    // A number under an Android alias (`"intentData": 7`) is renamed like a string (fuzzed); no value
                    // but a string is the type `failed`.
                    fields.mayNeedNormalising = fields.mayNeedNormalising || NDJSONCodec.isAlias(key)
                }
                value = read
            }
            members.append((key, value))
            guard members.count <= 4 * flattener.limits.maximumFields else { return nil }
            parser.skipSpace()
        } while parser.take(UInt8(ascii: ","))
        guard parser.take(UInt8(ascii: "}")) else { return nil }
        if nested {
            fields.object = JSONObject(members.lazy.map { ($0.key, $0.value) })
            fields.mayNeedNormalising = true
            return fields
        }
        var strings = [String: String](minimumCapacity: members.count)
        for (key, value) in members where value != .null {
            guard NDJSONCodec.set(Flattener.text(of: value), forKey: key, in: &strings) else { return nil }
        }
        // A key given twice keeps its last value (the tree's `JSONObject`): `null` last drops it, first does not.
        if nulls > 0, members.contains(where: { $0.value == .null && strings[$0.key] != nil }) { return nil }
        guard strings.count <= flattener.limits.maximumFields else { return nil }
        fields.strings = strings
        return fields
    }

    /// The members ``flatMembers(_:)`` makes room for before it reads them.
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
