import Foundation
import Testing

@testable import EventStore
@testable import MeasurementEvents

/// Replays every input kept in Regressions/NDJSONLine and Regressions/Flattening (inputs that once broke a
/// fuzz target, and hand-written nasty seeds) through the same invariants as Fuzz/NDJSONLine and
/// Fuzz/Flattening.
struct ParserFuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Regressions")
    static let limits = FlatteningLimits(maximumFields: 16, maximumKeyBytes: 32, maximumValueBytes: 48, maximumDepth: 4)

    static func inputs(_ target: String) -> [String] {
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(target).path))
        return (names ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    static func bytes(_ target: String, _ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(target).appendingPathComponent(name)))
    }

    @Test func everyParserTargetHasRegressionInputs() {
        #expect(!Self.inputs("NDJSONLine").isEmpty)
        #expect(!Self.inputs("Flattening").isEmpty)
    }

    @Test(arguments: inputs("NDJSONLine"))
    func ndjsonLinesReadBackUnchangedAfterExport(name: String) throws {
        let codec = NDJSONCodec(flattener: Flattener(limits: Self.limits))
        let bytes = try Self.bytes("NDJSONLine", name)
        let decoded = bytes.withUnsafeBufferPointer { buffer in try? codec.decode(utf8: buffer) }
        guard let event = decoded else { return }
        #expect(bytes.withUnsafeBufferPointer { buffer in try? codec.decode(utf8: buffer) } == event)
        #expect(!event.name.isEmpty && event.fields.count <= Self.limits.maximumFields)
        for (key, value) in event.fields {
            #expect(key.utf8.count <= Self.limits.maximumKeyBytes && value.utf8.count <= Self.limits.maximumValueBytes)
        }
        let line = NDJSONCodec.line(for: event)
        let again = try codec.decode(line)
        #expect(again == event)
        #expect(NDJSONCodec.line(for: again) == line)
    }

    @Test(arguments: inputs("Flattening"))
    func flatteningIsDeterministicBoundedAndIdempotent(name: String) throws {
        let bytes = try Self.bytes("Flattening", name)
        let parsed = bytes.withUnsafeBufferPointer { buffer in try? JSONValue.parse(utf8: buffer) }
        guard let value = parsed else { return }
        let object: JSONObject = value.objectValue ?? ["value": value]
        let flattener = Flattener(limits: Self.limits)
        guard let flat = try? flattener.flatten(object) else {
            #expect((try? flattener.flatten(object)) == nil)
            return
        }
        #expect((try? flattener.flatten(object)) == flat)
        #expect(flat.fields.count <= Self.limits.maximumFields)
        var cut = 0
        for (key, text) in flat.fields {
            #expect(key.utf8.count <= Self.limits.maximumKeyBytes && text.utf8.count <= Self.limits.maximumValueBytes)
            if text.hasSuffix(FlatteningLimits.truncationMarker) { cut += 1 }
        }
        #expect(flat.truncatedValues <= cut)
        for member in object {
            switch member.value {
            case .null, .object: continue
            case let scalar:
                let text = Flattener.text(of: scalar)
                if text.utf8.count <= Self.limits.maximumValueBytes { #expect(flat.fields[member.key] == text) }
            }
        }
        let checked = try flattener.check(flat.fields)
        #expect(checked.fields == flat.fields && checked.truncatedValues == 0)
    }
}
