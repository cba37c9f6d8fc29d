import MeasurementEvents

/// The Digital Asset Links statements of an assetlinks.json, read as Android's App Links verification reads them: a
/// list of statements, of which those that grant `delegate_permission/common.handle_all_urls` to an `android_app`
/// target (a `package_name` and `sha256_cert_fingerprints`) let that app open the site's links.
///
/// ```swift
/// let links = try AssetLinks(json: JSONValue.parse(text))
/// links.apps        // ["com.example.app"]: the packages granted handle_all_urls
/// links.problems    // what keeps a statement from working, in words a developer can act on
/// ```
public struct AssetLinks: Sendable, Hashable {
    /// The relation that lets an app open a site's links.
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"

    /// An app the file grants `handle_all_urls`.
    public struct App: Sendable, Hashable {
        public var package: String
        /// Its fingerprints that are well-formed (32 colon-separated hex pairs).
        public var fingerprints: [String]
    }

    /// The apps granted `handle_all_urls` with a package name, in order, each once.
    public var apps: [App] = []
    /// Why a statement does not let an app open the links (a wrong relation, a malformed fingerprint, ...).
    public var problems: [String] = []

    /// Why the file cannot be read as statements at all.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Reads the statements.
    /// - Throws: ``Problem`` when the value is not a list.
    public init(json: JSONValue) throws(Problem) {
        guard case .array(let statements) = json else {
            throw Problem(
                description: "is not a JSON list of statements: it must be [{\"relation\": [...], \"target\": {...}}]")
        }
        for (index, statement) in statements.enumerated() { read(statement, number: index + 1) }
        if statements.isEmpty { problems.append("is an empty list: add a statement for the app") }
    }

    /// The packages of ``apps``.
    public var packages: [String] { apps.map(\.package) }

    private mutating func read(_ statement: JSONValue, number: Int) {
        let name = "statement \(number)"
        guard case .object(let object) = statement else { return problems.append("\(name) is not an object") }
        let target = object["target"]
        let package = target?["package_name"]?.stringValue
        let label = package.map { "\(name) (\($0))" } ?? name
        let relations: [String]
        if case .array(let items)? = object["relation"] {
            relations = items.compactMap(\.stringValue)
        } else {
            relations = []
        }
        guard relations.contains(Self.handleAllURLs) else {
            let given = relations.isEmpty ? "no relation" : relations.map { "\"\($0)\"" }.joined(separator: ", ")
            return problems.append(
                "\(label) grants \(given), not \(Self.handleAllURLs): add \"\(Self.handleAllURLs)\" to its \"relation\""
            )
        }
        guard let namespace = target?["namespace"]?.stringValue, namespace == "android_app" else {
            let found = target?["namespace"]?.stringValue.map { "\"\($0)\"" } ?? "no namespace"
            return problems.append(
                "\(label)'s target has \(found): an app's target needs \"namespace\": \"android_app\"")
        }
        guard let package, !package.isEmpty else {
            return problems.append("\(name) has no \"package_name\": give the app's application id (com.example.app)")
        }
        guard Self.isPackageName(package) else {
            return problems.append(
                "\(label): \"\(package)\" is not a package name (letters, digits and _ in dot-separated parts)")
        }
        var valid: [String] = []
        var given: [JSONValue] = []
        if case .array(let items)? = target?["sha256_cert_fingerprints"] { given = items }
        if given.isEmpty {
            problems.append("\(label) lists no \"sha256_cert_fingerprints\": add the SHA-256 of the app's signing key")
        }
        for item in given {
            guard let fingerprint = item.stringValue, Self.isFingerprint(fingerprint) else {
                problems.append(
                    "fingerprint \(item.jsonText()) of \(package) is not 32 colon-separated hex pairs "
                        + "(AB:CD:...): copy the SHA-256 line of `keytool -list -v` for the signing key, or "
                        + "Play Console's App signing page")
                continue
            }
            valid.append(fingerprint)
        }
        if let index = apps.firstIndex(where: { $0.package == package }) {
            apps[index].fingerprints += valid
        } else {
            apps.append(App(package: package, fingerprints: valid))
        }
    }

    /// 32 pairs of hex digits, separated by colons: `14:6D:E9:...:E5` (95 characters).
    public static func isFingerprint(_ text: String) -> Bool {
        let pairs = text.split(separator: ":", omittingEmptySubsequences: false)
        return pairs.count == 32 && pairs.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }

    /// Dot-separated parts of letters, digits and `_`, each starting with a letter, at least two.
    static func isPackageName(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2
            && parts.allSatisfy { part in
                guard let first = part.first, first.isASCII, first.isLetter else { return false }
                return part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            }
    }
}
