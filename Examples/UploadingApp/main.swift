import EventUpload
import Foundation
import MeasurementEvents

#if Server && !ALSTATS_URLSESSION
import EventUploadHTTPClient
#endif

// upload-example: a host app in a few lines. It posts numbered al_nav_out events on a bus with an
// HTTPEventSink attached, then uploads until its outbox is empty. On Linux it sends with AsyncHTTPClient
// (EventUploadHTTPClient), as a server app should; elsewhere with URLSession. The upload tests kill it with SIGKILL
// mid-upload and start it again on the same outbox.
//
//     upload-example --outbox outbox.sqlite --to http://127.0.0.1:8080 --key w1 [--events 1000]
//
// Exit status: 0 once the outbox is empty, 69 unreachable, 77 refused key, 74 outbox error.

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let name = arguments.next() { options[String(name.drop { $0 == "-" })] = arguments.next() ?? "" }
guard let outbox = options["outbox"], let collector = options["to"].flatMap(URL.init(string:)), let key = options["key"]
else {
    FileHandle.standardError.write(Data("usage: upload-example --outbox PATH --to URL --key KEY [--events N]\n".utf8))
    exit(64)
}
let count = Int(options["events"] ?? "") ?? 0

do {
    let configuration = HTTPEventSink.Configuration(collector: collector, writeKey: key, outboxPath: outbox)
    #if ALSTATS_URLSESSION || !Server
    let sink = try HTTPEventSink(configuration)
    #else
    let sink = try HTTPEventSink(configuration, transport: AsyncHTTPClientUploadTransport())
    #endif
    let bus = MeasurementEventBus()
    bus.attach(sink)
    for index in 0..<count {
        _ = bus.publish(
            MeasurementEvent(
                id: EventID(uuidHigh: 0x0192_f5c3_8a1b_7000, low: 0x8000_0000_0000_0000 | UInt64(index)),
                name: EventName.navOut, fields: ["ref": "feed", "index": String(index)],
                timestamp: 1_763_683_200_000 + Int64(index)))
    }
    bus.flush()  // every event is in the outbox now
    try await sink.upload()
    bus.close()
    print("upload-example: \(sink.status.accepted) accepted, \(sink.status.duplicates) duplicates, 0 pending")
} catch {
    FileHandle.standardError.write(Data("upload-example: \(error.message)\n".utf8))
    switch error.kind {
    case .refused: exit(77)
    case .unreachable, .misdirected: exit(69)
    default: exit(74)
    }
}
