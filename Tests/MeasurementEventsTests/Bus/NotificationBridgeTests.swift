import Foundation
import Synchronization
import Testing

@testable import MeasurementEvents

struct NotificationBridgeTests {
    @Test func busEventsReachNotificationCenterObserversWithTheBoltsShape() {
        let center = NotificationCenter()
        let bus = MeasurementEventBus()
        let received = StateLock<[(String, [String: String])]>([])
        let observer = center.addObserver(
            forName: Notification.Name("com.parse.bolts.measurement_event"), object: nil, queue: nil
        ) { note in
            let name = note.userInfo?["event_name"] as? String ?? "?"
            let args = note.userInfo?["event_args"] as? [String: String] ?? [:]
            received.withLock { $0.append((name, args)) }
        }
        bus.forwardEvents(to: center)
        bus.post(EventName.navOut, fields: [FieldName.success: "1", FieldName.type: "app"])
        bus.flush()
        let got = received.withLock { $0 }
        #expect(got.count == 1)
        #expect(got.first?.0 == "al_nav_out")
        #expect(got.first?.1 == ["success": "1", "type": "app"])
        center.removeObserver(observer)
        bus.close()
    }

    @Test func notificationsPostedByOthersFeedTheBusFlattened() throws {
        let center = NotificationCenter()
        let bus = MeasurementEventBus()
        let sink = MemoryEventSink()
        bus.attach(sink)
        let token = bus.receiveEvents(from: center)
        let json = try JSONSerialization.jsonObject(
            with: Data(#"{"flag":true,"n":3,"x":1.5,"nested":{"k":"v"},"none":null}"#.utf8))
        center.post(
            name: MeasurementEventBus.notificationName, object: nil,
            userInfo: ["event_name": "al_nav_in", "event_args": json])
        center.post(
            name: MeasurementEventBus.notificationName, object: nil,
            userInfo: [
                "event_name": "signup",
                "event_args": ["native": true, "count": 2, "ratio": 0.25, "list": [1, "a"]] as [String: Any],
            ])
        center.post(
            name: MeasurementEventBus.notificationName, object: nil, userInfo: ["event_args": [:] as [String: Any]])
        bus.flush()
        #expect(sink.events.map(\.name) == ["al_nav_in", "signup"])
        #expect(sink.events[0].fields == ["flag": "1", "n": "3", "x": "1.5", "nested/k": "v"])
        #expect(sink.events[1].fields == ["native": "1", "count": "2", "ratio": "0.25", "list": #"[1,"a"]"#])
        #expect(bus.statistics.rejected == [.emptyName: 1])
        token.cancel()
        center.post(name: MeasurementEventBus.notificationName, object: nil, userInfo: ["event_name": "ignored"])
        bus.flush()
        #expect(sink.events.count == 2)
        bus.close()
    }

    @Test func bothDirectionsAtOnceDoNotLoop() {
        let center = NotificationCenter()
        let bus = MeasurementEventBus()
        let sink = MemoryEventSink()
        bus.attach(sink)
        bus.forwardEvents(to: center)
        bus.receiveEvents(from: center)
        bus.post("from-bus")
        center.post(name: MeasurementEventBus.notificationName, object: nil, userInfo: ["event_name": "from-center"])
        bus.flush()
        bus.flush()
        #expect(sink.events.map(\.name).sorted() == ["from-bus", "from-center"])
        bus.close()
    }
}
