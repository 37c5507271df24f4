import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import ServiceLifecycle

/// Order status changes from the outbox into the tracking hub.
struct TrackingStatusFeed: OutboxSubscriber {
    let hub: TrackingHub

    private struct EventPayload: Decodable {
        var orderId: UUID
        var status: String?
        var occurredAt: String
    }

    func deliver(_ message: OutboxMessage) async throws {
        guard message.topic == "event",
            let payload = try? JSONDecoder().decode(EventPayload.self, from: Data(message.payload.utf8)),
            let raw = payload.status,
            let status = TaskStatus(rawValue: raw)?.orderStatus ?? OrderStatus(rawValue: raw)
        else { return }
        hub.statusChanged(
            orderId: payload.orderId, to: status, at: RFC3339.date(from: payload.occurredAt) ?? message.createdAt)
    }
}

/// Once a second: `stale` messages for silent riders, and forgetting channels nobody follows.
struct TrackingSweeper: Service {
    let hub: TrackingHub
    let clock: any WallClock
    var interval: Duration = .seconds(1)

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            hub.sweep(now: clock.now())
            try? await Task.sleep(for: interval)
        }
    }
}
