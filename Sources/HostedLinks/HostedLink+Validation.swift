extension HostedLink {
    /// URL schemes never accepted for a link's URLs, nor followed on its page.
    static let refusedSchemes: Set<String> = ["javascript", "data", "vbscript", "file"]

    /// Checks the rules of docs/hosted-links.md: the slug's form, each group's required key, absolute target URLs
    /// without a refused scheme, an http(s) web URL, and at least one target or a web URL.
    /// - Throws: ``LinkValidationError`` naming the first offending field.
    public func validate() throws(LinkValidationError) {
        let slugCharacters = slug.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "_" || $0 == "-" }
        guard (1...64).contains(slug.unicodeScalars.count), slugCharacters else {
            throw LinkValidationError(field: "slug", reason: "must be 1 to 64 of A-Z a-z 0-9 _ -")
        }
        if let image, !Self.isSafeAbsoluteURL(image) {
            throw LinkValidationError(field: "image", reason: "must be an absolute URL (not javascript:, data:, ...)")
        }
        var hasTarget = false
        for group in LinkPlatformGroup.allCases {
            for (index, target) in (targets[group] ?? []).enumerated() {
                let path = "\(group.rawValue)[\(index)]"
                guard let required = target.values[group.requiredKey], !required.isEmpty else {
                    throw LinkValidationError(field: "\(path).\(group.requiredKey)", reason: "is required")
                }
                if let url = target.url, !Self.isSafeAbsoluteURL(url) {
                    throw LinkValidationError(
                        field: "\(path).url",
                        reason: "must be an absolute URL (not javascript:, data:, vbscript:, file:)")
                }
                hasTarget = true
            }
        }
        if let url = web?.url {
            guard Self.isWebURL(url) else {
                throw LinkValidationError(field: "web.url", reason: "must be an http(s) URL")
            }
        }
        for (index, name) in passQuery.enumerated() where name.isEmpty {
            throw LinkValidationError(field: "pass_query[\(index)]", reason: "must not be empty")
        }
        // A passed value is stored under `query/NAME`, and no store keeps a field name holding a NUL.
        for (index, name) in passQuery.enumerated() where name.utf8.contains(0) {
            throw LinkValidationError(field: "pass_query[\(index)]", reason: "must not hold the character U+0000")
        }
        guard hasTarget || web?.url != nil else {
            throw LinkValidationError(field: "", reason: "a link needs at least one target or a web URL")
        }
    }

    /// The lowercased scheme of an absolute URL (`scheme:` with RFC 3986 scheme characters), else `nil`.
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon].unicodeScalars
        guard let first = scheme.first, first.isASCIILetter,
            scheme.allSatisfy({ $0.isASCIIAlphanumeric || "+-.".unicodeScalars.contains($0) })
        else { return nil }
        return String(scheme).lowercased()
    }

    /// An absolute URL with no refused scheme, no whitespace or control characters.
    static func isSafeAbsoluteURL(_ url: String) -> Bool {
        guard let scheme = scheme(of: url), !refusedSchemes.contains(scheme) else { return false }
        return !url.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
    }

    /// An http or https URL with something after `//`.
    static func isWebURL(_ url: String) -> Bool {
        guard isSafeAbsoluteURL(url), let scheme = scheme(of: url), scheme == "http" || scheme == "https" else {
            return false
        }
        let rest = url.drop(while: { $0 != ":" }).dropFirst()
        return rest.hasPrefix("//") && rest.count > 2
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    var isASCIIAlphanumeric: Bool { isASCIILetter || ("0"..."9").contains(self) }
}
