// libFuzzer target: the flattening of JSON values into event fields (Flattener), on values parsed from the
// input bytes by JSONValue.parse. Built by .ci/fuzz together with the MeasurementEvents sources, as one module.
// Small limits, so that fuzzed values reach them.
// Invariants checked (a violation traps, which libFuzzer reports as a crash):
// - any bytes give a value or a parse error, and any value flattens or is rejected, never a crash;
// - flattening is deterministic;
// - the result respects the limits; a value is cut only when over the limit, and then ends with the marker;
// - a literal (top-level) key always wins over a nested key that flattens to the same name;
// - flattening is idempotent: checking the flat fields again changes nothing and cuts nothing.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlattening(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let value = try? JSONValue.parse(utf8: UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    let object: JSONObject = value.objectValue ?? ["value": value]
    let limits = FlatteningLimits(maximumFields: 16, maximumKeyBytes: 32, maximumValueBytes: 48, maximumDepth: 4)
    let flattener = Flattener(limits: limits)
    let flat: FlattenedFields
    do {
        flat = try flattener.flatten(object)
    } catch {
        precondition((try? flattener.flatten(object)) == nil, "a rejection is not deterministic")
        return 0
    }
    precondition((try? flattener.flatten(object)) == flat, "flattening is not deterministic")
    precondition(flat.fields.count <= limits.maximumFields)
    var cut = 0
    for (key, text) in flat.fields {
        precondition(key.utf8.count <= limits.maximumKeyBytes && text.utf8.count <= limits.maximumValueBytes)
        if text.hasSuffix(FlatteningLimits.truncationMarker) { cut += 1 }
    }
    precondition(flat.truncatedValues <= cut)
    for member in object {
        switch member.value {
        case .null, .object: continue
        case let scalar:
            let text = Flattener.text(of: scalar)
            if text.utf8.count <= limits.maximumValueBytes {
                precondition(flat.fields[member.key] == text, "a literal key lost to a nested one")
            }
        }
    }
    guard let checked = try? flattener.check(flat.fields) else { preconditionFailure("flat fields fail the check") }
    precondition(checked.fields == flat.fields && checked.truncatedValues == 0, "flattening is not idempotent")
    return 0
}
