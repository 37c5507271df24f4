import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsStore
import NIOCore
import NIOHTTP1

/// POSTs order events to other systems, signed so they can tell the request came from us (scheme in the README).
struct WebhookSender: NotificationSender {
    let channel = NotificationChannel.webhook
    let concurrency: Int
    let http: HTTPClient
    let clock: any WallClock
    /// Webhook secrets are stored sealed; this opens them to sign.
    let sealer: SecretSealer
    /// Development only: webhooks on this machine or its network (the URL check allowed them too).
    var allowPrivateAddresses = false

    func send(_ notification: PendingNotification) async -> SendOutcome {
        guard let stored = notification.webhookSecret else { return .rejected(reason: "the webhook was deleted") }
        let secret: String
        do { secret = try sealer.open(stored) } catch { return .rejected(reason: "\(error)") }
        if !allowPrivateAddresses, let host = URL(string: notification.target)?.host {
            do {
                if let address = try await WebhookAddress.privateAddress(of: host) {
                    return .rejected(reason: "\(host) resolves to the private address \(address)")
                }
            } catch {
                return .retry(reason: "webhook unreachable: \(error)", after: nil)
            }
        }
        let body = Array(notification.payload.utf8)
        let id = notification.eventId.lowercased
        let timestamp = Int(clock.now().timeIntervalSince1970)
        var request = HTTPClientRequest(url: notification.target)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "rider-logistics-webhooks/1")
        request.headers.add(name: "webhook-id", value: id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(
            name: "webhook-signature",
            value: WebhookSignature.sign(secret: secret, id: id, timestamp: timestamp, body: body))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await http.execute(request, timeout: .seconds(15))
            let answer = await ProviderResponse.body(response)
            if (200..<300).contains(response.status.code) { return .delivered }
            if (300..<400).contains(response.status.code) {
                let target = response.headers.first(name: "location").map { " to \($0.prefix(200))" } ?? ""
                return .retry(reason: "HTTP \(response.status.code): redirects are not followed\(target)", after: nil)
            }
            // Receivers fail in every way (deploys, 404 while a route is renamed, 401 while a secret rotates), so
            // everything is retried until the budget runs out; then an admin can look and redeliver.
            return .retry(
                reason: ProviderResponse.describe(response.status, answer),
                after: ProviderResponse.retryAfter(response.headers, now: clock.now()))
        } catch {
            return .retry(reason: "webhook unreachable: \(error)", after: nil)
        }
    }
}
