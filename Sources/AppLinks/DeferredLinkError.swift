/// Why the install path's library calls failed (docs/install.md): the install's state file, or the claim of a
/// click at the collector. An unclaimable click (unknown, expired, another install's) is an outcome, not an error.
///
/// ```swift
/// do {
///     let outcome = try await claim.claim(token, platform: .ios)
/// } catch {
///     print(error.code, error)   // "unreachable", "the collector stayed unreachable for 30 s: ..."
/// }
/// ```
public enum DeferredLinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The install's state file cannot be read, parsed or written.
    case stateFile(path: String, reason: String)
    /// The collector refused the write key (401 or 403).
    case refused(status: Int)
    /// The collector refused the claim itself (a 4xx other than the documented outcomes: a wrong URL, a body it
    /// could not read); retrying the same claim cannot help.
    case rejected(status: Int, reason: String)
    /// The collector stayed unreachable (network errors, 408, 429, 5xx) for longer than the claim waits.
    case unreachable(String)
    /// The collector answered 200 with something that is not a claim's answer.
    case badAnswer(String)

    /// A short, stable code for logs and programs.
    public var code: String {
        switch self {
        case .stateFile: "state_file"
        case .refused: "refused"
        case .rejected: "rejected"
        case .unreachable: "unreachable"
        case .badAnswer: "bad_answer"
        }
    }

    /// One line: what went wrong and what to do.
    public var description: String {
        switch self {
        case .stateFile(let path, let reason):
            "the install's state file \(path) cannot be used (\(reason)); give a file in a writable folder the app keeps"
        case .refused(let status):
            "the collector refused the write key (HTTP \(status)); check the key the app is built with"
        case .rejected(let status, let reason):
            "the collector refused the claim (HTTP \(status)): \(reason); check the collector URL"
        case .unreachable(let reason):
            "the collector stayed unreachable: \(reason); the claim is tried again at the next launch"
        case .badAnswer(let reason):
            "the collector's answer is not a claim's answer (\(reason)); is the URL an alstats collector?"
        }
    }
}
