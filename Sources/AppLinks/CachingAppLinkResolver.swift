import Foundation
import MeasurementEvents

/// Wraps a resolver and keeps each AppLink for a time to live, measured on an injectable clock.
///
/// Failures are not cached. Entries past their time to live are resolved again on next use.
///
/// ```swift
/// let clock = ManualEventClock(milliseconds: 0)
/// let resolver = CachingAppLinkResolver(wrapping: HTTPAppLinkResolver(), timeToLive: .seconds(300), clock: clock)
/// ```
public final class CachingAppLinkResolver<Wrapped: AppLinkResolving>: AppLinkResolving {
    private struct Entry {
        var link: AppLink
        var expiresAt: Int64
    }

    private let wrapped: Wrapped
    private let timeToLiveMilliseconds: Int64
    private let clock: any EventClock
    private let entries = StateLock<[URL: Entry]>([:])

    /// Creates a caching resolver.
    /// - Parameters:
    ///   - wrapped: the resolver asked on a miss.
    ///   - timeToLive: how long an AppLink stays cached (5 minutes by default).
    ///   - clock: the time source; inject ``ManualEventClock`` in tests.
    public init(
        wrapping wrapped: Wrapped, timeToLive: Duration = .seconds(300), clock: any EventClock = SystemEventClock()
    ) {
        self.wrapped = wrapped
        timeToLiveMilliseconds = timeToLive.wholeMilliseconds
        self.clock = clock
    }

    /// The cached AppLink while fresh, else the wrapped resolver's answer (then cached).
    public func appLink(for url: URL) async throws(AppLinkError) -> AppLink {
        let now = clock.nowMilliseconds()
        if let entry = entries.withLock({ $0[url] }), now < entry.expiresAt { return entry.link }
        let link = try await wrapped.appLink(for: url)
        let expiresAt = clock.nowMilliseconds() + timeToLiveMilliseconds
        entries.withLock { $0[url] = Entry(link: link, expiresAt: expiresAt) }
        return link
    }

    /// Forgets every cached AppLink.
    public func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
