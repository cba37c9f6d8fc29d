// The Swift snippets of docs/library.md, in functions so that they compile (`bash .ci/docs` checks that each
// snippet of the guide is here, line for line). What a snippet takes from the host app is a parameter.

import AppLinks
import EventStoreInterface
import EventStoreSQLite
import Foundation
import MeasurementEvents

#if Server && !ALSTATS_URLSESSION
import AppLinksHTTPClient
#endif

/// docs/library.md, "Post and observe events".
func libraryPostsAndObserves() {
    let bus = MeasurementEventBus.shared
    let token = bus.addObserver { event in print(event.name, event.fields) }  // its own thread, post order
    bus.post(EventName.navOut, fields: [FieldName.success: "1", FieldName.type: "app", FieldName.ref: "feed"])
    bus.flush()  // returns once the observer has seen the event
    token.cancel()
}

/// docs/library.md, an interceptor, an async sequence and a test clock.
func libraryInterceptsInTests() async {
    let clock = ManualEventClock(milliseconds: 1_763_683_200_000)  // tests: time moves only when told
    let bus = MeasurementEventBus(clock: clock)
    bus.addInterceptor(label: "app-version") { event in
        event.fields["appVersion"] = "4.2"
        return .keep
    }
    let sink = MemoryEventSink()  // keeps events in memory, for tests
    bus.attach(sink)
    bus.post("signup", fields: ["plan": "pro"])
    await bus.close()  // drains, commits and closes the sink
    print(sink.events[0].fields)  // appVersion 4.2 and plan pro
}

/// docs/library.md, "Store events in SQLite".
func libraryStoresInSQLite() throws {
    let bus = MeasurementEventBus()
    bus.attach(try SQLiteEventSink(path: "alstats.sqlite"))  // creates and migrates the file when needed
    bus.post(EventName.navIn, fields: [FieldName.targetURL: "https://news.example.com/a/7", FieldName.ref: "feed"])
    bus.flush()  // returns once the event is committed
    bus.close()  // commits what is left and closes the sink
}

/// Stand-ins for the host app's own screens.
@MainActor final class Banner {
    var text = ""
}

@MainActor func show(_ targetURL: String, ref: String?) {}

/// docs/library.md, "When a URL opens the app".
@MainActor func libraryRecordsAnOpen(openedURL: URL, sourceApplication: String?, banner: Banner) {
    let link = AppLinkURL(parsing: openedURL.absoluteString)  // never fails, never traps
    link.recordOpen(sourceApplication: sourceApplication)  // al_nav_in (or alstats_link_rejected)
    show(link.targetURL, ref: link.ref)
    if let back = AppLinkReturnToReferer(inbound: link) {
        banner.text = back.text  // "Touch to return to Facebook"
    }
}

/// docs/library.md, "Navigating out".
func libraryNavigatesOut(
    pageURL: URL, canOpenURL: (URL) -> Bool, openURL: (URL) -> Bool
) async -> AppLinkNavigationResult {
    #if ALSTATS_URLSESSION || !Server
    let resolver = CachingAppLinkResolver(wrapping: HTTPAppLinkResolver(platform: .iphone))
    #else  // Linux, as the guide says
    let resolver = CachingAppLinkResolver(wrapping: AsyncHTTPClientAppLinkResolver(platform: .iphone))
    #endif
    let result = await AppLinkNavigation.navigate(
        to: pageURL, resolver: resolver, appLinkData: ["ref": "feed"],
        referer: AppLinkReferer(url: "news://back", appName: "News"),
        canOpen: canOpenURL, open: openURL)
    // result.type is .app, .web or .fail; al_nav_out was posted in every case, with `error` on failure
    return result
}
