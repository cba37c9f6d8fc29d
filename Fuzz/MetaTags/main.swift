// libFuzzer target: the HTML meta-tag tokenizer, grouping and target choice.
// Built by .ci/fuzz together with the MeasurementEvents and AppLinks sources, as one module.
// Invariants checked: never a crash on any bytes; never more tags than bytes; every platform resolves.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetaTags(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let tags = MetaTagParser.metaTags(in: bytes)
    precondition(tags.count <= bytes.count)
    let metadata = AppLinkMetadata(tags: tags)
    let page = URL(string: "https://example.com/page")!
    for platform in AppLinkPlatform.allCases {
        let link = metadata.appLink(sourceURL: page, platform: platform)
        _ = AppLinkNavigation(appLink: link).plan { _ in true }
    }
    return 0
}
