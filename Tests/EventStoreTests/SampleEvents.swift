import Foundation
import MeasurementEvents
import TestSupport

/// TestSupport's temporary database, under the name every test of this target already uses without
/// importing TestSupport.
typealias TemporaryDatabase = TestSupport.TemporaryDatabase

/// Events with the shapes of the catalogue, deterministic for `count`.
func sampleEvents(_ count: Int, start: Int64 = 1_763_683_200_000, idPrefix: String? = nil) -> [MeasurementEvent] {
    (0..<count).map { index in
        let timestamp = start + Int64(index) * 61_000
        let id =
            idPrefix.map { EventID("\($0)-\(index)") }
            ?? EventID(uuidHigh: 0x0192_f5c3_8a1b_7000 | UInt64(index), low: 0x8000_0000_0000_0000 | UInt64(index))
        switch index % 4 {
        case 0:
            return MeasurementEvent(
                id: id, name: EventName.navIn,
                fields: [
                    FieldName.inputURL: "example://item/\(index)?ref=feed", FieldName.inputURLScheme: "example",
                    FieldName.targetURL: "https://example.com/item/\(index)",
                    FieldName.refererAppName: "App \(index % 3)",
                    FieldName.ref: "feed", FieldName.version: "1.0", "extras/fb_app_id": "\(index)",
                ], timestamp: timestamp)
        case 1:
            return MeasurementEvent(
                id: id, name: EventName.navOut,
                fields: [
                    FieldName.outputURL: "example://item/\(index)", FieldName.sourceURL: "https://example.com/\(index)",
                    FieldName.sourceURLHost: "example.com", FieldName.success: index % 8 == 1 ? "0" : "1",
                    FieldName.type: index % 8 == 1 ? "fail" : "app", FieldName.ref: "feed",
                ].merging(index % 8 == 1 ? [FieldName.error: "not installed"] : [:]) { $1 }, timestamp: timestamp)
        case 2:
            return MeasurementEvent(
                id: id, name: EventName.refBackOut,
                fields: [
                    FieldName.outputURL: "referer://back", FieldName.success: "1", FieldName.type: "app",
                    FieldName.refererAppName: "App \(index % 3)",
                ], timestamp: timestamp)
        default:
            return MeasurementEvent(
                id: id, name: "signup", fields: ["plan": "pro", FieldName.success: "yes"], timestamp: timestamp)
        }
    }
}
