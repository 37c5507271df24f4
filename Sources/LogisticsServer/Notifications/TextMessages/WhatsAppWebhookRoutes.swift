import Foundation
import HTTPTypes
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `GET` and `POST /api/v1/providers/whatsapp`: Meta's webhook for the WhatsApp Cloud API. The GET is Meta's
/// verification handshake (`hub.mode=subscribe`, `hub.verify_token`, `hub.challenge` echoed back); each POST is
/// signed with the app secret (`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`) and carries
/// message statuses (`sent`, `delivered`, `read`, `failed` with `errors`) and incoming messages (STOP, START).
struct WhatsAppWebhookRoutes {
    let notifications: any NotificationRepository
    /// Nil when WhatsApp's Cloud API is not configured: the routes answer 404.
    let appSecret: Redacted?
    let verifyToken: Redacted?
    let clock: any WallClock

    static let path = "/providers/whatsapp"

    func registerOpen(in routes: inout RouteTable) {
        routes.get(Self.path, verify)
        routes.postWithoutToken(Self.path, receive)
    }

    @Sendable func verify(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        guard let verifyToken else { throw LogisticsError(.notFound, "WhatsApp's Cloud API is not configured") }
        let query = request.uri.queryParameters
        guard query["hub.mode"].map(String.init) == "subscribe",
            let token = query["hub.verify_token"].map(String.init),
            ConstantTime.equal(Array(token.utf8), Array(verifyToken.value.utf8)),
            let challenge = query["hub.challenge"].map(String.init), challenge.count <= 200
        else { throw LogisticsError(.forbidden, "The verification token does not match") }
        return APIResponse(status: .ok, body: Data(challenge.utf8), contentType: "text/plain")
    }

    @Sendable func receive(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        guard let appSecret else { throw LogisticsError(.notFound, "WhatsApp's Cloud API is not configured") }
        var request = request
        let body = try await RequestBody.collect(&request, limit: 256 * 1024)
        let bytes = Array(buffer: body)
        guard let header = request.headers[HTTPField.Name("X-Hub-Signature-256")!],
            WhatsAppSignature.isValid(header, body: bytes, appSecret: appSecret.value)
        else { throw LogisticsError(.forbidden, "The X-Hub-Signature-256 does not match this request") }
        let notification: Notification
        do { notification = try JSONDecoder().decode(Notification.self, from: Data(bytes)) } catch {
            throw LogisticsError.validation(field: "entry", "is not a WhatsApp webhook notification")
        }
        let now = clock.now()
        for change in notification.entry.flatMap(\.changes) {
            for status in change.value.statuses ?? [] {
                let error = status.errors?.first.map { "WhatsApp \(status.status): error \($0.code) \($0.title ?? "")" }
                _ = try await notifications.recordProviderStatus(
                    channel: .whatsapp, providerId: status.id, status: ProviderStatus.normalized(status.status),
                    error: error, now: now)
            }
            for message in change.value.messages ?? [] {
                let phone = "+" + message.from
                guard PhoneNumber.isValid(phone), let text = message.text?.body ?? message.button?.text,
                    let keyword = OptOutKeyword.parse(text)
                else { continue }
                try await notifications.setTextOptOut(
                    phone: phone, optedOut: keyword == .stop, source: "whatsapp", now: now)
            }
        }
        // Meta retries anything but a 200; statuses of messages this server does not know are simply ignored.
        return APIResponse(status: .ok, body: Data(), contentType: "text/plain")
    }

    /// What this server reads of Meta's webhook document; the rest is ignored.
    struct Notification: Decodable {
        var object: String?
        var entry: [Entry]

        struct Entry: Decodable { var changes: [Change] }
        struct Change: Decodable {
            var field: String?
            var value: Value
        }
        struct Value: Decodable {
            var statuses: [Status]?
            var messages: [Message]?
        }
        struct Status: Decodable {
            var id: String
            var status: String
            var errors: [ProviderError]?
        }
        struct ProviderError: Decodable {
            var code: Int
            var title: String?
        }
        struct Message: Decodable {
            var from: String
            var text: Text?
            var button: Button?
        }
        struct Text: Decodable { var body: String }
        struct Button: Decodable { var text: String }
    }
}
