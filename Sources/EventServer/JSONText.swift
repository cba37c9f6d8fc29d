import Hummingbird
import MeasurementEvents
import NIOCore

/// JSON answers, written with the project's own `JSONValue` (keys in the order given).
typealias JSONText = JSONValue

extension Response {
    /// A JSON answer with `status`, `Content-Type: application/json` and `headers`.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        text(value.jsonText() + "\n", contentType: "application/json", status: status, headers: headers)
    }

    /// A text answer of `contentType`.
    static func text(
        _ text: String, contentType: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
