import MeasurementEvents

extension HostedLink {
    /// Reads and validates a link from its JSON form (docs/hosted-links.md, "A link").
    /// - Throws: ``LinkValidationError`` naming the first offending field.
    public init(json: JSONValue) throws(LinkValidationError) {
        guard let object = json.objectValue else { throw LinkValidationError(field: "", reason: "must be an object") }
        let known = Set(["slug", "title", "description", "image", "web", "pass_query"])
            .union(LinkPlatformGroup.allCases.map(\.rawValue))
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            throw LinkValidationError(field: unknown, reason: "is not a field of a link")
        }
        guard let slug = object["slug"]?.stringValue else {
            throw LinkValidationError(field: "slug", reason: "is required and must be a string")
        }
        self.init(slug: slug)
        title = try Self.optionalString(object["title"], field: "title")
        description = try Self.optionalString(object["description"], field: "description")
        image = try Self.optionalString(object["image"], field: "image")
        for group in LinkPlatformGroup.allCases {
            if let value = object[group.rawValue] { targets[group] = try Self.targets(value, group: group) }
        }
        if let value = object["web"] { web = try Self.web(value) }
        if let value = object["pass_query"] { passQuery = try Self.names(value) }
        try validate()
    }

    /// One link or an array of links from JSON text, each validated.
    /// - Throws: `JSONParseError` for text that is not JSON, ``LinkValidationError`` (its field prefixed
    ///   with `[index].` inside an array) for an invalid link.
    public static func links(fromJSON text: String) throws -> [HostedLink] {
        let value = try JSONValue.parse(text)
        guard case .array(let items) = value else { return [try HostedLink(json: value)] }
        var links: [HostedLink] = []
        for (index, item) in items.enumerated() {
            do { links.append(try HostedLink(json: item)) } catch {
                let field = "[\(index)]" + (error.field.isEmpty ? "" : ".\(error.field)")
                throw LinkValidationError(field: field, reason: error.reason)
            }
        }
        return links
    }

    /// The canonical JSON form: keys in the order of docs/hosted-links.md, absent fields left out.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("slug", .string(slug))]
        for (key, value) in [("title", title), ("description", description), ("image", image)] {
            if let value { members.append((key, .string(value))) }
        }
        for group in LinkPlatformGroup.allCases {
            guard let list = targets[group] else { continue }
            members.append(
                (
                    group.rawValue,
                    .array(
                        list.map { target in
                            .object(
                                JSONObject(
                                    group.keys.compactMap { key in target.values[key].map { (key, .string($0)) } }))
                        })
                ))
        }
        if let web {
            var fields: [(String, JSONValue)] = []
            if let url = web.url { fields.append(("url", .string(url))) }
            fields.append(("should_fallback", .bool(web.shouldFallback)))
            members.append(("web", .object(JSONObject(fields))))
        }
        if !passQuery.isEmpty { members.append(("pass_query", .array(passQuery.map { .string($0) }))) }
        return .object(JSONObject(members))
    }

    private static func optionalString(_ value: JSONValue?, field: String) throws(LinkValidationError) -> String? {
        guard let value, value != .null else { return nil }
        guard let string = value.stringValue else {
            throw LinkValidationError(field: field, reason: "must be a string")
        }
        return string
    }

    private static func targets(_ value: JSONValue, group: LinkPlatformGroup) throws(LinkValidationError)
        -> [LinkTarget]
    {
        guard case .array(let items) = value else {
            throw LinkValidationError(field: group.rawValue, reason: "must be an array of targets")
        }
        var targets: [LinkTarget] = []
        for (index, item) in items.enumerated() {
            let path = "\(group.rawValue)[\(index)]"
            guard let object = item.objectValue else {
                throw LinkValidationError(field: path, reason: "must be an object")
            }
            var values: [String: String] = [:]
            for member in object {
                guard group.keys.contains(member.key) else {
                    throw LinkValidationError(field: "\(path).\(member.key)", reason: "is not a field of this target")
                }
                values[member.key] = try optionalString(member.value, field: "\(path).\(member.key)")
            }
            targets.append(LinkTarget(values: values))
        }
        return targets
    }

    private static func web(_ value: JSONValue) throws(LinkValidationError) -> Web {
        guard let object = value.objectValue else {
            throw LinkValidationError(field: "web", reason: "must be an object")
        }
        if let unknown = object.keys.first(where: { $0 != "url" && $0 != "should_fallback" }) {
            throw LinkValidationError(field: "web.\(unknown)", reason: "is not a field of web")
        }
        var web = Web(url: try optionalString(object["url"], field: "web.url"))
        switch object["should_fallback"] {
        case nil, .null?: break
        case .bool(let flag)?: web.shouldFallback = flag
        default: throw LinkValidationError(field: "web.should_fallback", reason: "must be true or false")
        }
        return web
    }

    private static func names(_ value: JSONValue) throws(LinkValidationError) -> [String] {
        guard case .array(let items) = value else {
            throw LinkValidationError(field: "pass_query", reason: "must be an array of names")
        }
        return try items.enumerated().map { index, item throws(LinkValidationError) in
            guard let name = item.stringValue else {
                throw LinkValidationError(field: "pass_query[\(index)]", reason: "must be a string")
            }
            return name
        }
    }
}
