/// Reads the times of NDJSON and of `--since`/`--until`: RFC 3339 timestamps and `YYYY-MM-DD` dates (UTC).
///
/// ```swift
/// EventTime.milliseconds(rfc3339: "2025-11-21T00:00:00.123Z")   // 1763683200123
/// EventTime.milliseconds(timeOrDate: "2025-11-21")             // 1763683200000 (midnight UTC)
/// ```
public enum EventTime {
    /// The times an event may carry, in milliseconds since the Unix epoch: from 0001-01-01T00:00:00Z to
    /// 9999-12-31T23:59:59.999Z, the years every store writes the same (RFC 3339 also writes a year 0000, which
    /// PostgreSQL's calendar, without a year 0, dates as 0001). A line whose `ts` lies outside is refused where it
    /// enters (`bad_ts`, as the NDJSON codec and the collector say): the stores' bucket arithmetic, the exports and
    /// the reports' windows need a time well inside `Int64`.
    public static let supportedRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// Milliseconds since the Unix epoch of an RFC 3339 timestamp (`T` or a space between date and time,
    /// `Z` or an offset, fractions beyond milliseconds cut), or `nil` when `text` is not one.
    public static func milliseconds(rfc3339 text: String) -> Int64? {
        Array(text.utf8).withUnsafeBufferPointer { milliseconds(rfc3339: $0) }
    }

    /// ``milliseconds(rfc3339:)-(String)`` of UTF-8 bytes read in place (an NDJSON line's `ts`).
    package static func milliseconds(rfc3339 bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count >= 20, let date = date(bytes) else { return nil }
        guard bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
            let hour = number(bytes, 11, 2), bytes[13] == UInt8(ascii: ":"), let minute = number(bytes, 14, 2),
            bytes[16] == UInt8(ascii: ":"), let second = number(bytes, 17, 2), hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fraction: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, let digit = digit(bytes[index]) {
                if digits < 3 { fraction = fraction * 10 + digit }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { fraction *= 10 } }
        }
        guard index < bytes.count else { return nil }
        var offsetMinutes: Int64 = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, let hours = number(bytes, index + 1, 2),
                bytes[index + 3] == UInt8(ascii: ":"),
                let minutes = number(bytes, index + 4, 2), hours < 24, minutes < 60
            else { return nil }
            offsetMinutes = (hours * 60 + minutes) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds = date * 86_400 + hour * 3_600 + minute * 60 + second - offsetMinutes * 60
        return seconds * 1_000 + fraction
    }

    /// An RFC 3339 timestamp, or a `YYYY-MM-DD` date taken as midnight UTC.
    public static func milliseconds(timeOrDate text: String) -> Int64? {
        let bytes = Array(text.utf8)
        if bytes.count == 10, let days = bytes.withUnsafeBufferPointer(date) { return days * 86_400_000 }
        return milliseconds(rfc3339: text)
    }

    /// The RFC 3339 UTC text of a time, with milliseconds: `2025-11-21T00:00:00.123Z`.
    public static func rfc3339(milliseconds: Int64) -> String {
        let days = floorDivide(milliseconds, 86_400_000)
        let rest = milliseconds - days * 86_400_000
        let (year, month, day) = civil(days: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(rest / 3_600_000, 2)):"
            + "\(pad(rest / 60_000 % 60, 2)):\(pad(rest / 1_000 % 60, 2)).\(pad(rest % 1_000, 3))Z"
    }

    /// Days since 1970-01-01 of the `YYYY-MM-DD` at the start of `bytes`.
    private static func date(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count >= 10, let year = number(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"),
            let month = number(bytes, 5, 2), bytes[7] == UInt8(ascii: "-"), let day = number(bytes, 8, 2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        return days(year: year, month: month, day: day)
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int64? {
        guard start + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for index in start..<start + count {
            guard let digit = digit(bytes[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private static func digit(_ byte: UInt8) -> Int64? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int64(byte - UInt8(ascii: "0")) : nil
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The start of the UTC day of `milliseconds` (ms since the Unix epoch, before 1970 too): the day a loss is
    /// counted on in completeness.
    package static func utcDayStart(of milliseconds: Int64) -> Int64 {
        floorDivide(milliseconds, 86_400_000) * 86_400_000
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` date, or `nil` when `text` is not one.
    package static func days(date text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10 else { return nil }
        return bytes.withUnsafeBufferPointer(date)
    }

    /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
    package static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of days since 1970-01-01 (Howard Hinnant's civil_from_days).
    package static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The `YYYY-MM-DD` date of days since 1970-01-01 (years 0 to 9999).
    package static func date(days: Int64) -> String {
        let (year, month, day) = civil(days: days)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2)
    }
}
