import Foundation
import Testing

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

    /// What each kept input must do, so that a parser that starts refusing an input cannot pass by returning
    /// early. A new input in Regressions/ needs a line here (the replay fails without one).
    enum Outcome: Equatable {
        /// NDJSON: decoded into an event. Flattening: parsed as JSON and flattened.
        case accepted
        /// NDJSON: refused by the decoder. Flattening: not JSON.
        case refused
        /// Flattening only: parsed as JSON, refused by the flattener.
        case refusedByFlattener
    }

    static let expected: [String: [String: Outcome]] = [
        // extremes.ndjson's time, Int64.min, lies outside the years 0001 to 9999 (EventTime.supportedRange).
        "NDJSONLine": [
            "edges.ndjson": .accepted, "export.ndjson": .accepted, "extremes.ndjson": .refused,
            "nested.ndjson": .accepted, "not-an-object.ndjson": .refused, "alias-number.ndjson": .accepted,
            "null-long-key.ndjson": .refused,
        ],
        "Flattening": [
            "array.json": .accepted, "collide.json": .accepted, "nested.json": .accepted, "truncated.json": .refused,
        ],
    ]

    static func expected(_ target: String, _ name: String) throws -> Outcome {
        try #require(expected[target]?[name], "Regressions/\(target)/\(name) has no expected outcome")
    }

    @Test func everyExpectedOutcomeHasItsInput() {
        for (target, outcomes) in Self.expected { #expect(Set(outcomes.keys) == Set(Self.inputs(target))) }
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
        let outcome = try Self.expected("NDJSONLine", name)
        #expect((decoded == nil ? Outcome.refused : .accepted) == outcome)
        #expect(NDJSONReaderAgreement.agree(on: bytes, codec: codec))
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
        let outcome = try Self.expected("Flattening", name)
        guard let value = parsed else {
            #expect(outcome == .refused)
            return
        }
        let object: JSONObject = value.objectValue ?? ["value": value]
        let flattener = Flattener(limits: Self.limits)
        guard let flat = try? flattener.flatten(object) else {
            #expect(outcome == .refusedByFlattener)
            #expect((try? flattener.flatten(object)) == nil)
            return
        }
        #expect(outcome == .accepted)
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
