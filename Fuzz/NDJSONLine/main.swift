// libFuzzer target: the NDJSON line parser of ingest (NDJSONCodec.decode) and the export writer.
// Built by .ci/fuzz together with the MeasurementEvents sources and the files in Fuzz/NDJSONLine/sources, as
// one module. Small flattening limits, so that fuzzed lines reach them.
// Invariants checked (a violation traps, which libFuzzer reports as a crash):
// - any bytes give an event or an NDJSONLineError, never a crash;
// - decoding is deterministic (the same line gives the same event, derived id included);
// - the one-pass reader (decodeFlat), when it takes a line, gives the tree reader's event and truncation count;
// - the reader in place (scan), when it takes a line, finds the decoded event, with no value cut;
// - a decoded event has a name and respects the limits (fields, key and value bytes);
// - a decoded event, exported as a line and read again, is the same event, and exports to the same line.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNDJSONLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let limits = FlatteningLimits(maximumFields: 16, maximumKeyBytes: 32, maximumValueBytes: 48, maximumDepth: 4)
    let codec = NDJSONCodec(flattener: Flattener(limits: limits))
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var flatCut = 0
    if let flat = codec.decodeFlat(utf8: bytes, truncatedValues: &flatCut) {
        var treeCut = 0
        let tree = try? codec.decodeTree(utf8: bytes, truncatedValues: &treeCut)
        precondition(tree == flat && treeCut == flatCut, "the one-pass and tree readers disagree")
    }
    var flatLine = FlatLine()
    if codec.scan(bytes, into: &flatLine) {
        var cut = 0
        guard let decoded = try? codec.decode(utf8: bytes, truncatedValues: &cut) else {
            preconditionFailure("the reader in place took a line the decoder refuses")
        }
        var fields: [String: String] = [:]
        for field in flatLine.fields {
            fields[String(decoding: field.key, as: UTF8.self)] = String(decoding: field.value, as: UTF8.self)
        }
        let scanned = MeasurementEvent(
            id: flatLine.id, name: String(decoding: flatLine.name, as: UTF8.self), fields: fields,
            timestamp: flatLine.timestamp)
        precondition(cut == 0 && scanned == decoded, "the reader in place and the decoder disagree")
    }
    guard let event = try? codec.decode(utf8: bytes) else { return 0 }
    precondition((try? codec.decode(utf8: bytes)) == event, "decoding is not deterministic")
    precondition(!event.name.isEmpty)
    precondition(event.fields.count <= limits.maximumFields)
    for (key, value) in event.fields {
        precondition(key.utf8.count <= limits.maximumKeyBytes && value.utf8.count <= limits.maximumValueBytes)
    }
    let line = NDJSONCodec.line(for: event)
    guard let again = try? codec.decode(line) else { preconditionFailure("an exported line does not read back") }
    precondition(again == event, "export then ingest changed the event")
    precondition(NDJSONCodec.line(for: again) == line)
    return 0
}
