import MeasurementEvents
import SQLiteSupport

/// The device's losses on their way to the collector (`Migrations/upload/`, docs/design/device-losses.md): counted in `upload_loss_counts` in the
/// transaction that counts them in completeness, turned into `upload_loss_records` (``DeviceLoss`` events
/// with ids of their own) when a batch is read, sent at the head of a batch under the key `-id`, and deleted
/// when a receipt answers them. The collector adds a record's count to its completeness once, however often
/// the record is sent.
extension UploadOutbox {
    /// Adds `losses` to the counts still to be sent, inside the writer's open transaction.
    static func countForCollector(_ losses: [DropReason: Int], on writer: SQLiteConnection) throws(SQLiteError) {
        guard losses.values.contains(where: { $0 > 0 }) else { return }
        let upsert = try writer.prepare(UploadSQL.statement("upsert_loss_count"))
        for (reason, count) in losses.sorted(by: { $0.key < $1.key }) where count > 0 {
            upsert.bind(1, reason.rawValue)
            upsert.bind(2, Int64(count))
            try upsert.run()
        }
    }

    /// Turns the counts into loss records, in one transaction: from then on each is sent with its own id.
    static func convertLossCounts(on reader: SQLiteConnection, nowMilliseconds: Int64) throws(SQLiteError) {
        guard try reader.scalarInt(UploadSQL.statement("count_loss_counts")) > 0 else { return }
        try reader.immediateTransaction(doing: "turning the device's losses into records") { () throws(SQLiteError) in
            let select = try reader.prepare(UploadSQL.statement("select_loss_counts"))
            var losses: [DeviceLoss] = []
            while try select.step() {
                var left = Int(select.int64(1))
                let reason = DropReason(rawValue: select.text(0) ?? "")
                while left > 0 {  // a record carries at most DeviceLoss.maximumCount
                    let count = min(left, DeviceLoss.maximumCount)
                    losses.append(DeviceLoss(reason: reason, count: count))
                    left -= count
                }
            }
            select.reset()
            let insert = try reader.prepare(UploadSQL.statement("insert_loss_record"))
            for loss in losses {
                insert.bind(1, NDJSONCodec.line(for: loss.event(timestamp: nowMilliseconds)))
                try insert.run()
            }
            try reader.execute(
                UploadSQL.statement("delete_loss_counts"), doing: "turning the device's losses into records")
        }
    }

    /// Appends to `batch` the loss records after those of `previous`, oldest first, under the keys `-id`.
    static func appendLossRecords(
        after previous: UploadBatch?, to batch: inout UploadBatch, bytes: inout Int, maximumEvents: Int,
        maximumBytes: Int, on reader: SQLiteConnection
    ) throws(SQLiteError) {
        let select = try reader.prepare(UploadSQL.statement("select_loss_records"))
        select.bind(1, previous?.keys.filter { $0 < 0 }.map { -$0 }.max() ?? 0)
        select.bind(2, Int64(maximumEvents))
        defer { select.reset() }
        while try select.step() {
            guard batch.append(select.text(1) ?? "", key: -select.int64(0), bytes: &bytes, maximumBytes: maximumBytes)
            else { return }
        }
    }

    /// Deletes the loss records of `keys` (the negative ones), inside the reader's open transaction.
    static func deleteLossRecords(_ keys: [Int64], on reader: SQLiteConnection) throws(SQLiteError) {
        let records = keys.filter { $0 < 0 }
        guard !records.isEmpty else { return }
        let delete = try reader.prepare(UploadSQL.statement("delete_loss_record"))
        for key in records {
            delete.bind(1, -key)
            try delete.run()
        }
    }
}
