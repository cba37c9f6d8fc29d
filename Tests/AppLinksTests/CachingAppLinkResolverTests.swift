import AppLinks
import Foundation
import MeasurementEvents
import Synchronization
import Testing

/// Counts calls; fails when told to.
final class CountingResolver: AppLinkResolving {
    let calls = Atomic<Int>(0)
    let failing = Atomic<Bool>(false)

    func appLink(for url: URL) async throws(AppLinkError) -> AppLink {
        let count = calls.add(1, ordering: .sequentiallyConsistent).newValue
        if failing.load(ordering: .sequentiallyConsistent) { throw .network("down") }
        return AppLink(sourceURL: url, targets: [AppLinkTarget(url: URL(string: "app://\(count)"))], webURL: nil)
    }
}

struct CachingAppLinkResolverTests {
    @Test func keepsAnAppLinkForItsTimeToLive() async throws {
        let clock = ManualEventClock(milliseconds: 1_000_000)
        let wrapped = CountingResolver()
        let resolver = CachingAppLinkResolver(wrapping: wrapped, timeToLive: .seconds(60), clock: clock)
        let page = URL(string: "https://example.com/a")!

        let first = try await resolver.appLink(for: page)
        clock.advance(by: 59_999)
        #expect(try await resolver.appLink(for: page) == first)
        #expect(wrapped.calls.load(ordering: .sequentiallyConsistent) == 1)

        clock.advance(by: 1)
        let refreshed = try await resolver.appLink(for: page)
        #expect(refreshed != first)
        #expect(wrapped.calls.load(ordering: .sequentiallyConsistent) == 2)

        _ = try await resolver.appLink(for: URL(string: "https://example.com/b")!)
        #expect(wrapped.calls.load(ordering: .sequentiallyConsistent) == 3)
    }

    @Test func doesNotCacheFailures() async throws {
        let wrapped = CountingResolver()
        wrapped.failing.store(true, ordering: .sequentiallyConsistent)
        let resolver = CachingAppLinkResolver(wrapping: wrapped, clock: ManualEventClock(milliseconds: 0))
        let page = URL(string: "https://example.com/a")!
        await #expect(throws: AppLinkError.network("down")) { try await resolver.appLink(for: page) }
        wrapped.failing.store(false, ordering: .sequentiallyConsistent)
        _ = try await resolver.appLink(for: page)
        #expect(wrapped.calls.load(ordering: .sequentiallyConsistent) == 2)
    }
}
