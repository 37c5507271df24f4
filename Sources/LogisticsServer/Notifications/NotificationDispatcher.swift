import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Prometheus
import ServiceLifecycle

/// Sends what the outbox fanned out: claims due notifications (a lease, so several instances share the queue
/// without sending one twice), sends them with a bounded number in flight per provider, and records each
/// outcome: sent, retry later (backoff, Retry-After), dead-lettered, or the device forgotten.
struct NotificationDispatcher: Service {
    let repository: any NotificationRepository
    let senders: [NotificationChannel: any NotificationSender]
    let policies: [NotificationChannel: RetryPolicy]
    let clock: any WallClock
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    /// Names this instance's leases.
    let owner = UUID().lowercased
    /// Rung when this instance's outbox pass queued notifications.
    var wake = WakeSignal()
    var idleInterval: Duration = .milliseconds(200)
    /// Long enough for the slowest send (15 s timeouts) to finish; a crashed instance's rows come back after it.
    var lease: TimeInterval = 60

    func run() async throws {
        do { try await repository.releaseStaleLeases() } catch {
            logger.warning("could not release stale notification leases", metadata: ["error": "\(error)"])
        }
        var lastBacklog = ContinuousClock.now - .seconds(10)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            var sent = 0
            do {
                sent = try await sendOnce()
                if ContinuousClock.now - lastBacklog > .seconds(1) {
                    try await recordBacklog()
                    lastBacklog = .now
                }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("notification pass failed; will retry", metadata: ["error": "\(error)"])
            }
            if sent == 0 { await wake.wait(upTo: idleInterval) }
        }
    }

    /// One pass: claims a batch and sends it; returns how many were attempted.
    @discardableResult
    func sendOnce(limit: Int = 200) async throws -> Int {
        let now = clock.now()
        let claimed = try await repository.claimNotifications(
            owner: owner, limit: limit, leaseUntil: now.addingTimeInterval(lease), now: now)
        guard !claimed.isEmpty else { return 0 }
        await withTaskGroup(of: Void.self) { group in
            for (channel, batch) in Dictionary(grouping: claimed, by: \.channel) {
                guard let sender = senders[channel] else { continue }
                group.addTask { await send(batch, with: sender) }
            }
        }
        return claimed.count
    }

    /// Sends a channel's batch with at most `sender.concurrency` requests in flight.
    private func send(_ batch: [PendingNotification], with sender: any NotificationSender) async {
        await withTaskGroup(of: Void.self) { group in
            var remaining = batch[...]
            for _ in 0..<max(1, sender.concurrency) {
                guard let next = remaining.popFirst() else { break }
                group.addTask { await deliver(next, with: sender) }
            }
            for await _ in group {
                guard let next = remaining.popFirst() else { continue }
                group.addTask { await deliver(next, with: sender) }
            }
        }
    }

    private func deliver(_ notification: PendingNotification, with sender: any NotificationSender) async {
        let outcome = await sender.send(notification)
        let now = clock.now()
        let result: NotificationResult
        let label: String
        switch outcome {
        case .delivered(let providerId):
            (result, label) = (.sent(providerId: providerId), "sent")
        case .rejected(let reason):
            (result, label) = (.dead(reason: reason), "rejected")
        case .unregistered(let reason):
            (result, label) = (.unregistered(reason: reason), "unregistered")
        case .retry(let reason, let after):
            let policy = policies[notification.channel] ?? .pushes
            if let at = policy.next(
                afterAttempt: notification.attempts + 1, retryAfter: after, since: notification.budgetFrom, now: now)
            {
                (result, label) = (.retry(at: at, reason: reason), "retry")
            } else {
                (result, label) = (
                    .dead(reason: "gave up after \(notification.attempts + 1) attempts: \(reason)"), "dead"
                )
            }
        }
        if label != "sent" {
            logger.info(
                "notification not delivered",
                metadata: [
                    "channel": "\(notification.channel.rawValue)", "notification_id": "\(notification.id)",
                    "outcome": "\(label)", "detail": "\(result)",
                ])
        }
        registry.counter(
            .notificationsSent, labels: [("provider", notification.channel.rawValue), ("outcome", label)]
        ).increment()
        do {
            try await repository.finishNotification(notification, result: result, now: now)
        } catch {
            // The lease runs out and the row is claimed again: at least once, never lost.
            logger.warning(
                "could not record a notification's outcome",
                metadata: ["id": "\(notification.id)", "error": "\(error)"])
        }
    }

    private func recordBacklog() async throws {
        let backlog = try await repository.notificationBacklog()
        registry.gauge(.notificationQueueDepth).set(Double(backlog.pending))
        registry.gauge(.notificationOldestPending).set(
            backlog.oldestPendingSince.map { max(clock.now().timeIntervalSince($0), 0) } ?? 0)
    }
}
