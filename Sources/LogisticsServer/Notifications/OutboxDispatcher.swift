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

/// Drains the outbox in id order (so in per-order order), at least once, and closes expired offers. In-process
/// subscribers (live tracking) get each message at once; pushes and webhooks are fanned out to one queued
/// notification per device or webhook, in the transaction that marks the message sent, and
/// `NotificationDispatcher` sends those.
struct OutboxDispatcher: Service {
    let repository: any LogisticsRepository
    let deliveries: any DeliveryRepository
    let notifications: any NotificationRepository
    /// The channels with a configured provider; devices on other channels get nothing queued.
    let channels: Set<NotificationChannel>
    /// Where customers hear from us when their order names no channels.
    let customerChannels: [CustomerChannel]
    let subscribers: [any OutboxSubscriber]
    let clock: any WallClock
    let logger: Logger
    /// Rung by this instance's requests that changed something: their events go out at once, not at the poll.
    var wake = WakeSignal()
    /// Rung here once notifications are queued, so they are sent at once too.
    var queued: WakeSignal?
    var interval: Duration = .milliseconds(250)
    /// The least time between the starts of two passes.
    var coalescing: Duration = .milliseconds(20)

    func run() async throws {
        var lastExpiry = ContinuousClock.now - interval
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let passStarted = ContinuousClock.now
            do {
                if try await drainOnce() > 0 { queued?.ring() }
                // On the poll's beat, not on every wake: under load a wake comes with each change.
                if ContinuousClock.now - lastExpiry >= interval {
                    lastExpiry = .now
                    _ = try await deliveries.expireOffers(now: clock.now())
                }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("outbox pass failed; will retry", metadata: ["error": "\(error)"])
            }
            await wake.wait(upTo: interval)
            // A pass per change would cost a transaction per change under load: changes rung in the same few
            // milliseconds go out together.
            let gap = ContinuousClock.now - passStarted
            if gap < coalescing { try? await Task.sleep(for: coalescing - gap) }
        }
    }

    /// One pass; returns how many messages were marked sent.
    @discardableResult
    func drainOnce() async throws -> Int {
        let pending = try await repository.pendingOutbox(limit: 200)
        guard !pending.isEmpty else { return 0 }
        var sent: [OutboxMessage] = []
        var blockedOrders: Set<UUID> = []
        for message in pending where !blockedOrders.contains(message.orderId) {
            do {
                for subscriber in subscribers { try await subscriber.deliver(message) }
                sent.append(message)
            } catch {
                // Keep the order's later messages behind the failed one, so each order stays in order.
                blockedOrders.insert(message.orderId)
                logger.warning(
                    "outbox delivery failed", metadata: ["outbox_id": "\(message.id)", "error": "\(error)"])
            }
        }
        try await notifications.fanOut(sent, channels: channels, customerChannels: customerChannels, now: clock.now())
        return sent.count
    }
}
