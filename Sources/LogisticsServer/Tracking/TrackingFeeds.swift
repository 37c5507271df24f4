import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import ServiceLifecycle

/// Order events from the outbox into live tracking (customers' status messages, dispatchers' streams).
struct TrackingEventFeed: OutboxSubscriber {
    let relay: any TrackingRelay

    private struct Notification: Encodable {
        var type = "notification"
        var title: String?
        var body: String?
        /// The catalog key of the words, so an app can say the same in its rider's language.
        var key: String?
        var orderId: String
    }

    func deliver(_ message: OutboxMessage) async throws {
        if message.topic == "event", let notice = OrderEventNotice(json: message.payload) {
            relay.publish([.event(notice)])
        } else if message.topic == "push", let recipientId = message.recipientId {
            // Riders connected to the stream see their offers and dispatcher messages at once.
            let text = try APIJSON.encoder.encode(
                Notification(
                    title: message.title, body: message.body, key: message.textKey,
                    orderId: message.orderId.lowercased))
            relay.publish([.notice(recipientId: recipientId, message: String(decoding: text, as: UTF8.self))])
        }
    }
}

/// Once a second: `stale` messages for silent riders, and forgetting channels nobody follows.
struct TrackingSweeper: Service {
    let hub: TrackingHub
    let clock: any WallClock
    var interval: Duration = .seconds(1)

    func run() async throws {
        // The second's sleep ends when shutdown begins: every server stop waited for it.
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                hub.sweep(now: clock.now())
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }
}
