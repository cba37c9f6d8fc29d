// The Swift snippets of README.md, in functions so that they compile (`bash .ci/docs` checks that each snippet
// of the README is here, line for line). What a snippet takes from the host app is a parameter.

import AppLinks
import EventStoreInterface
import EventStoreSQLite
import EventUpload
import Foundation
import MeasurementEvents

#if Server && !ALSTATS_URLSESSION
import EventUploadHTTPClient
#endif

/// README.md, "In your app: the library".
func readmeRecordsAnInboundLink(openedURL: URL, sourceApplication: String?) throws {
    // At launch: events go to a SQLite file, committed in batches on the bus's own thread.
    MeasurementEventBus.shared.attach(try SQLiteEventSink(path: "alstats.sqlite"))

    // When a URL opens the app: al_nav_in, with the referer app and the ref of the link.
    AppLinkURL(parsing: openedURL.absoluteString).recordOpen(sourceApplication: sourceApplication)
}

/// README.md, the uploader.
func readmeAttachesTheUploader(collectorURL: URL, writeKey: String, outboxPath: String) throws {
    #if ALSTATS_URLSESSION || !Server
    let sink = try HTTPEventSink(.init(collector: collectorURL, writeKey: writeKey, outboxPath: outboxPath))
    #else  // Linux, as the README says
    let sink = try HTTPEventSink(
        .init(collector: collectorURL, writeKey: writeKey, outboxPath: outboxPath),
        transport: AsyncHTTPClientUploadTransport())
    #endif
    MeasurementEventBus.shared.attach(sink)
    let uploads = Task { await sink.run() }  // uploads in the background until cancelled
    uploads.cancel()
}
