import Foundation

/// The bridge between the bus and Foundation's `NotificationCenter`, with the notification Bolts uses,
/// so that existing observers of that notification keep working and existing posters of it feed the bus.
///
/// ```swift
/// let out = bus.forwardEvents(to: .default)      // bus events → "com.parse.bolts.measurement_event"
/// let into = bus.receiveEvents(from: .default)   // those notifications, posted by others → bus
/// ```
extension MeasurementEventBus {
    /// The notification name Bolts posts measurement events under.
    public static let notificationName = Notification.Name("com.parse.bolts.measurement_event")
    /// The userInfo key of the event name.
    public static let notificationEventNameKey = "event_name"
    /// The userInfo key of the event's fields.
    public static let notificationEventArgsKey = "event_args"

    /// Posts every event of this bus to `center` as the Bolts notification: userInfo
    /// `{"event_name": name, "event_args": fields}`, with this bus as the notification's object.
    ///
    /// Notifications are posted from the bridge's own delivery thread, in post order.
    /// - Returns: a token whose `cancel()` stops forwarding.
    @discardableResult
    public func forwardEvents(
        to center: NotificationCenter = .default,
        options: ObserverOptions = ObserverOptions(label: "notification-center")
    ) -> ObservationToken {
        addObserver(options: options) { [weak self] event in
            center.post(
                name: MeasurementEventBus.notificationName, object: self,
                userInfo: [
                    MeasurementEventBus.notificationEventNameKey: event.name,
                    MeasurementEventBus.notificationEventArgsKey: event.fields,
                ])
        }
    }

    /// Posts to this bus every Bolts notification that others post to `center`.
    ///
    /// `event_name` must be a non-empty string; `event_args` may hold any JSON-like values (strings,
    /// numbers, booleans, `NSNull`, arrays, dictionaries), which are flattened. A notification without a
    /// usable name is counted as rejected (``DropReason/emptyName``). Notifications this bus forwarded
    /// itself are ignored, so that both directions can run at once without a loop.
    /// - Returns: a token whose `cancel()` stops receiving.
    @discardableResult
    public func receiveEvents(from center: NotificationCenter = .default) -> ObservationToken {
        let observer = center.addObserver(forName: MeasurementEventBus.notificationName, object: nil, queue: nil) {
            [weak self] notification in
            guard let self, notification.object as AnyObject? !== self else { return }
            let userInfo = notification.userInfo ?? [:]
            let name = userInfo[MeasurementEventBus.notificationEventNameKey] as? String ?? ""
            var values = JSONObject()
            if let arguments = userInfo[MeasurementEventBus.notificationEventArgsKey] as? [String: Any] {
                for (key, value) in arguments.sorted(by: { $0.key < $1.key }) {
                    values[key] = JSONValue(foundation: value)
                }
            }
            post(name, values: values)
        }
        let registration = NotificationRegistration(center: center, observer: observer)
        return ObservationToken { registration.remove() }
    }
}

/// A NotificationCenter observer to remove later.
///
/// `@unchecked Sendable`: `observer` is an opaque token that is only handed back to `center`, whose
/// `removeObserver` is thread-safe; neither is read or mutated otherwise.
private final class NotificationRegistration: @unchecked Sendable {
    let center: NotificationCenter
    let observer: any NSObjectProtocol

    init(center: NotificationCenter, observer: any NSObjectProtocol) {
        self.center = center
        self.observer = observer
    }

    func remove() {
        center.removeObserver(observer)
    }
}

extension JSONValue {
    /// A JSON value from a Foundation object graph (as `JSONSerialization` or a notification's userInfo
    /// holds it): strings, Swift numbers and booleans, `NSNumber` (booleans recognised by their class,
    /// not by value), `NSNull`, arrays and string-keyed dictionaries (members sorted by key); anything
    /// else becomes its description as a string.
    public init(foundation value: Any) {
        let dynamicType = type(of: value)
        if let string = value as? String {
            self = .string(string)
        } else if dynamicType == Bool.self, let bool = value as? Bool {
            self = .bool(bool)
        } else if dynamicType is NSNumber.Type, let number = value as? NSNumber {
            if dynamicType == JSONValue.foundationBooleanClass {
                self = .bool(number.boolValue)
            } else if ["d", "f"].contains(String(cString: number.objCType)) {
                self = .double(number.doubleValue)
            } else if String(cString: number.objCType) == "Q", number.uint64Value > UInt64(Int64.max) {
                self = .double(number.doubleValue)
            } else {
                self = .int(number.int64Value)
            }
        } else if let int = value as? Int {
            self = .int(Int64(int))
        } else if let int = value as? Int64 {
            self = .int(int)
        } else if let int = value as? Int32 {
            self = .int(Int64(int))
        } else if let double = value as? Double {
            self = .double(double)
        } else if let float = value as? Float {
            self = .double(Double(float))
        } else if value is NSNull {
            self = .null
        } else if let array = value as? [Any] {
            self = .array(array.map(JSONValue.init(foundation:)))
        } else if let dictionary = value as? [String: Any] {
            self = .object(JSONObject(dictionary.keys.sorted().map { ($0, JSONValue(foundation: dictionary[$0]!)) }))
        } else if case Optional<Any>.none = value {
            self = .null
        } else {
            self = .string(String(describing: value))
        }
    }

    /// The class Foundation gives boolean `NSNumber`s (`JSONSerialization`'s `true` and `false`).
    private static var foundationBooleanClass: Any.Type { type(of: NSNumber(value: true)) }
}
