// libFuzzer target: the inbound URL parser and everything built on its result.
// Built by .ci/fuzz together with the MeasurementEvents and AppLinks sources, as one module.
// Invariants checked (a violation traps, which libFuzzer reports as a crash):
// - parsing, the event, the back link and its dry run never crash on any text;
// - a rejected URL is a plain deep link (target = input, no data), an accepted one has no rejection;
// - strict encoding survives the query rules: parse("v=" + encode(s))["v"] == s;
// - any text sent as `ref` and in extras by a navigation comes back unchanged from the inbound parse.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInboundURL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let link = AppLinkURL(parsing: text)
    _ = link.event(sourceApplication: "fuzz")
    if link.rejection != nil {
        precondition(!link.isAppLink && link.targetURL == text && link.appLinkData == nil)
    }
    if let back = AppLinkReturnToReferer(inbound: link) {
        _ = back.plan { _ in true }
    }
    precondition(QueryParameters.parse("v=" + QueryParameters.encode(text))["v"] == text)
    if !text.isEmpty {
        let navigation = AppLinkNavigation(
            appLink: AppLink(
                sourceURL: URL(string: "https://example.com/p")!, targets: [AppLinkTarget(url: URL(string: "app://x"))],
                webURL: nil),
            extras: ["note": .string(text)], appLinkData: ["ref": .string(text)])
        let sent = navigation.plan { _ in true }
        let received = AppLinkURL(parsing: sent.url!.absoluteString)
        precondition(received.ref == text && received.appLinkExtras?["note"] == .string(text))
    }
    return 0
}
