// The Swift snippets of docs/upload.md, in functions so that they compile (`bash .ci/docs` checks that each
// snippet of the guide is here, line for line). What a snippet takes from the host app is a parameter.

import EventUpload
import Foundation
import MeasurementEvents

#if Server && !ALSTATS_URLSESSION
import EventUploadHTTPClient
#endif

/// docs/upload.md, "In host code".
func uploadAttachesTheSink(collectorURL: URL, writeKey: String, outboxPath: String, newWriteKey: String) throws {
    #if ALSTATS_URLSESSION || !Server
    let sink = try HTTPEventSink(.init(collector: collectorURL, writeKey: writeKey, outboxPath: outboxPath))
    #else  // Linux, as the guide says
    let sink = try HTTPEventSink(
        .init(collector: collectorURL, writeKey: writeKey, outboxPath: outboxPath),
        transport: AsyncHTTPClientUploadTransport())
    #endif
    MeasurementEventBus.shared.attach(sink)  // each event is committed to the outbox file first
    let uploads = Task { await sink.run() }  // uploads in the background until cancelled

    // Later, in a settings screen or a health check:
    let status = sink.status  // pending, accepted, duplicates, dropped by reason, last success and error
    if status.isPaused { sink.resume(writeKey: newWriteKey) }  // after a 401 or 403
    uploads.cancel()
}
