import Foundation
import LogisticsCore
import LogisticsStore
import NIOCore
import NIOHTTP1

/// POSTs order events to other systems, signed so they can tell the request came from us (scheme in the README).
struct WebhookSender: NotificationSender {
    let channel = NotificationChannel.webhook
    let concurrency: Int
    /// Resolves once, checks, and connects to the checked address; follows no redirect.
    let connection: WebhookConnection
    let clock: any WallClock
    /// Webhook secrets are stored sealed; this opens them to sign.
    let sealer: SecretSealer

    func send(_ notification: PendingNotification) async -> SendOutcome {
        guard let stored = notification.webhookSecret else { return .rejected(reason: "the webhook was deleted") }
        let secret: String
        do { secret = try sealer.open(stored) } catch { return .rejected(reason: "\(error)") }
        let body = Array(notification.payload.utf8)
        let id = notification.eventId.lowercased
        let timestamp = Int(clock.now().timeIntervalSince1970)
        let headers = [
            ("content-type", "application/json"), ("user-agent", "rider-logistics-webhooks/1"), ("webhook-id", id),
            ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", WebhookSignature.sign(secret: secret, id: id, timestamp: timestamp, body: body)),
        ]
        do {
            let response = try await connection.post(notification.target, headers: headers, body: body)
            let answer = response.body
            if (200..<300).contains(response.status.code) { return .delivered(providerId: nil) }
            if (300..<400).contains(response.status.code) {
                let target = response.headers.first(name: "location").map { " to \($0.prefix(200))" } ?? ""
                return .retry(reason: "HTTP \(response.status.code): redirects are not followed\(target)", after: nil)
            }
            // Receivers fail in every way (deploys, 404 while a route is renamed, 401 while a secret rotates), so
            // everything is retried until the budget runs out; then an admin can look and redeliver.
            return .retry(
                reason: ProviderResponse.describe(response.status, answer),
                after: ProviderResponse.retryAfter(response.headers, now: clock.now()))
        } catch let refused as WebhookConnection.Refused {
            return .rejected(reason: refused.description)
        } catch {
            return .retry(reason: "webhook unreachable: \(error)", after: nil)
        }
    }
}
