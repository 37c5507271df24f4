import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import ServiceLifecycle

/// Something that receives outbox messages: the tracking hub, push providers, webhooks.
public protocol OutboxSubscriber: Sendable {
    /// Delivers one message; throwing leaves it in the outbox for the next pass.
    func deliver(_ message: OutboxMessage) async throws
}

/// Drains the outbox in id order (so in per-order order), at least once, and closes expired offers.
/// Delivery to push providers and webhooks plugs in as subscribers.
struct OutboxDispatcher: Service {
    let repository: any LogisticsRepository
    let deliveries: any DeliveryRepository
    let subscribers: [any OutboxSubscriber]
    let clock: any WallClock
    let logger: Logger
    var interval: Duration = .milliseconds(250)

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await drainOnce()
                _ = try await deliveries.expireOffers(now: clock.now())
            } catch is CancellationError {
                return
            } catch {
                logger.warning("outbox pass failed; will retry", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// One pass; returns how many messages were marked sent.
    @discardableResult
    func drainOnce() async throws -> Int {
        let pending = try await repository.pendingOutbox(limit: 200)
        guard !pending.isEmpty else { return 0 }
        var sent: [Int] = []
        var blockedOrders: Set<UUID> = []
        for message in pending where !blockedOrders.contains(message.orderId) {
            do {
                for subscriber in subscribers { try await subscriber.deliver(message) }
                sent.append(message.id)
            } catch {
                // Keep the order's later messages behind the failed one, so each order stays in order.
                blockedOrders.insert(message.orderId)
                logger.warning(
                    "outbox delivery failed", metadata: ["outbox_id": "\(message.id)", "error": "\(error)"])
            }
        }
        try await repository.markOutboxSent(ids: sent, now: clock.now())
        return sent.count
    }
}
