// The Swift snippets of docs/install.md, in functions so that they compile (`bash .ci/docs` checks that each
// snippet of the guide is here, line for line). What a snippet takes from the host app is a parameter.

import AppLinks
import EventUpload
import Foundation

/// docs/install.md, "In the iOS app": the claim of the pasteboard's click and the first open.
func installClaimsTheDeferredLink(
    stateFile: String, collectorURL: URL, writeKey: String, transport: any UploadTransport, pasteboardText: String?,
    open: (String) -> Void
) async throws {
    let install = try AppInstall(stateFile: stateFile)
    let configuration = DeferredLinkClaim.Configuration(collector: collectorURL, writeKey: writeKey)
    let claim = DeferredLinkClaim(configuration, install: install, transport: transport)
    let outcome = try await claim.claim(pasteboard: pasteboardText, linkHost: "go.example.com")
    try install.recordFirstOpen()
    if let link = outcome.link, let url = link.url {
        link.recordOpen()  // al_nav_in, deferred 1: the link's arrivals count it
        open(url)
    }
}
