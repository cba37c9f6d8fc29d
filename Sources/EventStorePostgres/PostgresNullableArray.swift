import NIOCore
import PostgresNIO

/// A one-dimensional `text[]` or `bigint[]` parameter whose elements may be NULL, in PostgreSQL's binary array
/// format: postgres-nio encodes arrays of non-optional elements only, and the write path binds one array per
/// column (`INSERT ... SELECT * FROM unnest($1::text[], ...)`), where an absent field is NULL.
struct PostgresNullableArray: PostgresNonThrowingEncodable {
    /// The elements, already in their binary form (`nil` for NULL).
    private enum Elements {
        case text([String?])
        case int64([Int64?])
    }

    private let elements: Elements

    /// A `text[]`.
    init(_ values: [String?]) { elements = .text(values) }

    /// A `bigint[]`.
    init(_ values: [Int64?]) { elements = .int64(values) }

    static var psqlType: PostgresDataType { .textArray }
    static var psqlFormat: PostgresFormat { .binary }

    var psqlType: PostgresDataType {
        switch elements {
        case .text: return .textArray
        case .int64: return .int8Array
        }
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        switch elements {
        case .text(let values):
            writeHeader(count: values.count, hasNull: values.contains(nil), element: .text, into: &buffer)
            for value in values {
                guard let value else {
                    buffer.writeInteger(-1, as: Int32.self)
                    continue
                }
                buffer.writeInteger(Int32(value.utf8.count), as: Int32.self)
                buffer.writeString(value)
            }
        case .int64(let values):
            writeHeader(count: values.count, hasNull: values.contains(nil), element: .int8, into: &buffer)
            for value in values {
                guard let value else {
                    buffer.writeInteger(-1, as: Int32.self)
                    continue
                }
                buffer.writeInteger(8, as: Int32.self)
                buffer.writeInteger(value, as: Int64.self)
            }
        }
    }

    /// Dimensions (0 when empty, else 1), the has-NULL flag, the element type, then the length and lower bound.
    private func writeHeader(count: Int, hasNull: Bool, element: PostgresDataType, into buffer: inout ByteBuffer) {
        buffer.writeInteger(count == 0 ? 0 : 1, as: Int32.self)
        buffer.writeInteger(hasNull ? 1 : 0, as: Int32.self)
        buffer.writeInteger(element.rawValue, as: UInt32.self)
        guard count > 0 else { return }
        buffer.writeInteger(Int32(count), as: Int32.self)
        buffer.writeInteger(1, as: Int32.self)
    }
}
