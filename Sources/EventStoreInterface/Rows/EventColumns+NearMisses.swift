import MeasurementEvents

extension EventColumns {
    /// A field whose name is no catalogue name but a near miss of one (``FieldName/nearMiss(of:)``).
    package typealias NearMiss = (field: String, didYouMean: String)

    /// The near misses among the fields of a line read in place, by field name. A catalogue name costs one look-up
    /// of its column (``bindIndex(ofKey:)``); only the other names are given to `nearMiss` (matching every name
    /// was 2% of the collector's CPU in a push).
    package static func nearMisses(
        among fields: [FlatLine.Field], nearMiss: (UnsafeBufferPointer<UInt8>) -> String?
    ) -> [NearMiss] {
        var found: [NearMiss] = []
        for field in fields where bindIndex(ofKey: field.key) == nil {
            if let suggestion = nearMiss(field.key) {
                found.append((String(decoding: field.key, as: UTF8.self), suggestion))
            }
        }
        return found.sorted { $0.field < $1.field }
    }

    /// ``nearMisses(among:nearMiss:)`` of a decoded event's fields.
    package static func nearMisses(among fields: [String: String], nearMiss: (String) -> String?) -> [NearMiss] {
        var found: [NearMiss] = []
        for key in fields.keys where bindIndex(of: key) == nil {
            if let suggestion = nearMiss(key) { found.append((key, suggestion)) }
        }
        return found.sorted { $0.field < $1.field }
    }
}
