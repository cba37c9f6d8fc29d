import Foundation
import MeasurementEvents

/// This install of the app, as the install path sees it (docs/install.md): a random install id made once, whether
/// its claim of a deferred link ran and found one, and whether its first open was recorded. Kept in a small JSON
/// file the app names (in its Application Support folder, say), so that each runs once per install.
///
/// ```swift
/// let install = try AppInstall(stateFile: supportFolder.appendingPathComponent("alstats-install.json").path)
/// let outcome = try await DeferredLinkClaim(configuration, install: install).claim(token, platform: .ios)
/// try install.recordFirstOpen()   // alstats_first_open, once: attributed 1 when the claim found a link
/// ```
///
/// The file holds the install id (a random UUID, no device identifier), the claim's state and a flag; nothing else.
public final class AppInstall: Sendable {
    /// Where the claim of a deferred link stands.
    public enum Claim: String, Sendable, Hashable {
        /// Not made yet, or not finished (the collector was unreachable): the next claim tries again.
        case pending
        /// Made, and the collector answered with the link that was clicked.
        case attributed
        /// Made, and there was no link to open: no click, or one that was unknown, expired or another install's.
        case unattributed
    }

    private struct State: Equatable {
        var install: String
        var claim: Claim = .pending
        var claiming = false
        var firstOpen = false
    }

    /// The state file; `nil` for an install kept in memory only.
    public let stateFile: String?
    private let state: StateLock<State>

    /// The install of the state file at `stateFile`, made (with a new random install id) when the file does not
    /// exist yet.
    /// - Throws: ``DeferredLinkError/stateFile(path:reason:)`` when the file cannot be read, is not such a state, or
    ///   cannot be written.
    public init(stateFile path: String) throws(DeferredLinkError) {
        stateFile = path
        if let data = FileManager.default.contents(atPath: path) {
            state = StateLock(try Self.parse(data, path: path))
        } else {
            let fresh = State(install: UUID().uuidString.lowercased())
            try Self.write(fresh, to: path)
            state = StateLock(fresh)
        }
    }

    /// An install kept in memory only, with the install id `id` (simulations and tests: the demo's devices).
    package init(id: String) {
        stateFile = nil
        state = StateLock(State(install: id))
    }

    /// The install id: random, made once, sent with the claim of a deferred link.
    public var id: String { state.withLock { $0.install } }

    /// Where the claim of a deferred link stands.
    public var claim: Claim { state.withLock { $0.claim } }

    /// Whether the first open was recorded.
    public var firstOpenRecorded: Bool { state.withLock { $0.firstOpen } }

    /// Starts the claim: `false` when it has finished already or another claim is under way (a claim runs at most
    /// once per install), else marks it under way. Every `true` must be followed by ``endClaim(_:)``.
    package func beginClaim() -> Bool {
        state.withLock { state in
            guard state.claim == .pending, !state.claiming else { return false }
            state.claiming = true
            return true
        }
    }

    /// Ends a claim begun with ``beginClaim()``: records `claim` (``Claim/pending`` when it did not finish).
    /// - Throws: ``DeferredLinkError/stateFile(path:reason:)`` when it cannot be recorded; the claim stays pending.
    package func endClaim(_ claim: Claim) throws(DeferredLinkError) {
        try update { state in
            state.claiming = false
            state.claim = claim
        }
    }

    /// Posts `alstats_first_open` once per install (the activateApp of the App Links seeds), with `attributed` `1`
    /// when the claim found a deferred link, else `0`. Call it once the claim has run, at the first launch.
    /// - Parameter bus: where to post; by default ``MeasurementEventBus/shared``.
    /// - Returns: whether it posted (`false`: recorded before).
    /// - Throws: ``DeferredLinkError/stateFile(path:reason:)`` when it cannot be recorded; then nothing is posted.
    @discardableResult
    public func recordFirstOpen(on bus: MeasurementEventBus = .shared) throws(DeferredLinkError) -> Bool {
        var attributed: Bool?
        try update { state in
            guard !state.firstOpen else { return }
            state.firstOpen = true
            attributed = state.claim == .attributed
        }
        guard let attributed else { return false }
        let event = Self.firstOpenEvent(attributed: attributed)
        bus.post(event.name, fields: event.fields)
        return true
    }

    /// The `alstats_first_open` event: field `attributed`, `1` or `0`.
    public static func firstOpenEvent(attributed: Bool) -> AppLinkEvent {
        AppLinkEvent(name: EventName.firstOpen, fields: ["attributed": attributed ? "1" : "0"])
    }

    /// Changes the state and writes it (for an install with a file), under the lock; nothing changes when the file
    /// cannot be written.
    private func update(_ change: (inout State) -> Void) throws(DeferredLinkError) {
        try state.withLock { (current: inout State) throws(DeferredLinkError) in
            var next = current
            change(&next)
            guard next != current else { return }
            if let stateFile { try Self.write(next, to: stateFile) }
            current = next
        }
    }

    private static func parse(_ data: Data, path: String) throws(DeferredLinkError) -> State {
        guard let value = try? JSONValue.parse(String(decoding: data, as: UTF8.self)),
            let install = value["install"]?.stringValue, !install.isEmpty,
            let claim = value["claim"]?.stringValue.flatMap(Claim.init(rawValue:))
        else { throw .stateFile(path: path, reason: "it is not an install's state") }
        return State(install: install, claim: claim, firstOpen: value["first_open"] == .bool(true))
    }

    private static func write(_ state: State, to path: String) throws(DeferredLinkError) {
        let value = JSONValue.object(
            JSONObject([
                ("install", .string(state.install)), ("claim", .string(state.claim.rawValue)),
                ("first_open", .bool(state.firstOpen)),
            ]))
        do {
            try Data(value.jsonText().utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .stateFile(path: path, reason: "\(error.localizedDescription)")
        }
    }
}
