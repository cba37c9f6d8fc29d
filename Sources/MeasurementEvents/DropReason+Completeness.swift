extension DropReason {
    /// The prefix of a reason counted on a device and reported by its uploader (`device:buffer_full`): the
    /// collector keeps the device's losses apart from its own (docs/design/device-losses.md).
    package static let devicePrefix = "device:"

    /// The `kind` of the completeness row this reason is counted in, on every backend: `dropped` for events lost
    /// after the bus accepted them, `altered` for events stored with a value cut to the length limit, `rejected`
    /// for events refused (by the bus or by ingest over a limit). A device's reason counts as the reason it names.
    package var completenessKind: String {
        if rawValue.hasPrefix(Self.devicePrefix) {
            return DropReason(rawValue: String(rawValue.dropFirst(Self.devicePrefix.count))).completenessKind
        }
        if rawValue == "outbox_full" { return "dropped" }  // the device's uploader lost what the bus accepted
        if rawValue == Redactor.conservativeReason { return "altered" }  // stored, a value redacted whole
        switch self {
        case .bufferFull, .sinkError: return "dropped"
        case .valueTruncated: return "altered"
        default: return "rejected"
        }
    }
}
