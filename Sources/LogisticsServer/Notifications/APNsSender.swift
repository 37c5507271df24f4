import AsyncHTTPClient
import Foundation
import JWTKit
import LogisticsCore
import LogisticsStore
import NIOCore
import NIOHTTP1

/// Apple Push Notification service with token-based authentication. AsyncHTTPClient speaks HTTP/2 to Apple
/// (negotiated over TLS), one connection multiplexing many pushes.
struct APNsSender: NotificationSender {
    let channel = NotificationChannel.apns
    let concurrency: Int
    let baseURL: String
    let topic: String
    let tokens: APNsProviderTokens
    let http: HTTPClient
    let clock: any WallClock

    private struct Payload: Encodable {
        struct APS: Encodable {
            var alert: [String: String]
            var sound = "default"
        }
        var aps: APS
        var orderId: String
        var eventId: String
        var status: String?
    }

    private struct Reason: Decodable { var reason: String? }

    func send(_ notification: PendingNotification) async -> SendOutcome {
        let content = PushContent(notification)
        do {
            var request = HTTPClientRequest(url: "\(baseURL)/3/device/\(notification.target)")
            request.method = .POST
            request.headers.add(name: "authorization", value: "bearer \(try await tokens.token())")
            request.headers.add(name: "apns-topic", value: topic)
            request.headers.add(name: "apns-push-type", value: "alert")
            request.headers.add(name: "apns-priority", value: "10")
            // A newer push about the same order replaces an older one still on the lock screen.
            request.headers.add(name: "apns-collapse-id", value: notification.orderId.lowercased)
            // Apple drops a second copy with the same id, which makes at-least-once sends safer.
            request.headers.add(name: "apns-id", value: notification.eventId.uuidString)
            request.headers.add(name: "content-type", value: "application/json")
            let payload = Payload(
                aps: .init(alert: ["title": content.title, "body": content.body]), orderId: content.data["orderId"]!,
                eventId: content.data["eventId"]!, status: content.data["status"])
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(payload)))
            let response = try await http.execute(request, timeout: .seconds(15))
            let body = await ProviderResponse.body(response)
            return await outcome(response.status, body, response.headers)
        } catch {
            return .retry(reason: "APNs unreachable: \(error)", after: nil)
        }
    }

    private func outcome(_ status: HTTPResponseStatus, _ body: ByteBuffer, _ headers: HTTPHeaders) async
        -> SendOutcome
    {
        if status == .ok { return .delivered(providerId: nil) }
        let reason = (try? JSONDecoder().decode(Reason.self, from: Data(buffer: body)))?.reason ?? ""
        let description = ProviderResponse.describe(status, body)
        if status == .gone || reason == "BadDeviceToken" || reason == "Unregistered" {
            return .unregistered(reason: description)
        }
        if status == .forbidden && (reason == "ExpiredProviderToken" || reason == "InvalidProviderToken") {
            await tokens.invalidate()
            return .retry(reason: description, after: 0)
        }
        if ProviderResponse.isTransient(status) {
            return .retry(reason: description, after: ProviderResponse.retryAfter(headers, now: clock.now()))
        }
        return .rejected(reason: description)
    }
}

/// The ES256 provider token APNs wants: signed with the team's .p8 key, reused for 50 minutes (Apple refuses
/// tokens older than an hour, and also refuses a new one more often than every 20 minutes).
actor APNsProviderTokens {
    private struct Claims: JWTPayload {
        var iss: String
        var iat: Int
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    private let keys: JWTKeyCollection
    private let keyId: String
    private let teamId: String
    private let clock: any WallClock
    private var cached: (token: String, issuedAt: Date)?

    init(keyFile: String, keyId: String, teamId: String, clock: any WallClock) async throws {
        let pem: String
        do { pem = try String(contentsOfFile: keyFile, encoding: .utf8) } catch {
            throw ConfigurationError("cannot read the APNs key file \(keyFile)")
        }
        let key: ES256PrivateKey
        do { key = try ES256PrivateKey(pem: pem) } catch {
            throw ConfigurationError("\(keyFile) is not an APNs .p8 key (a P-256 private key in PEM)")
        }
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyId))
        self.keys = keys
        self.keyId = keyId
        self.teamId = teamId
        self.clock = clock
    }

    func token() async throws -> String {
        let now = clock.now()
        if let cached, now.timeIntervalSince(cached.issuedAt) < 50 * 60 { return cached.token }
        let token = try await keys.sign(
            Claims(iss: teamId, iat: Int(now.timeIntervalSince1970)), kid: JWKIdentifier(string: keyId))
        cached = (token, now)
        return token
    }

    func invalidate() { cached = nil }
}
