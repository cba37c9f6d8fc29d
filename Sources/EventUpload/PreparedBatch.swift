import Foundation

/// A batch ready to send: its lines and keys, and the request body (the lines as NDJSON, gzip-compressed).
struct PreparedBatch: Sendable {
    /// The events.
    let batch: UploadBatch
    /// The gzip of the batch's NDJSON body.
    let body: Data

    /// Encodes and compresses `batch`.
    init(_ batch: UploadBatch) {
        self.batch = batch
        body = Gzip.compress(batch.body)
    }
}
