import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsStore
import NIOCore

/// Meta's WhatsApp Cloud API: `POST {base}/v19.0/{phone-number-id}/messages` with a Bearer token and an approved
/// template (`{"messaging_product": "whatsapp", "to", "type": "template", "template": {name, language: {code},
/// components: [{type: "body", parameters: [{type: "text", text}]}]}}`). 200 carries `messages[0].id` (a
/// `wamid.…`), which the webhooks' statuses name. Errors are `{"error": {message, type, code, error_data, …}}`.
struct WhatsAppCloudSender: NotificationSender {
    let channel = NotificationChannel.whatsapp
    let concurrency: Int
    let baseURL: String
    let phoneNumberId: String
    let token: Redacted
    let composer: CustomerTextComposer
    let templates: [String: String]
    let languages: [String: String]
    let http: HTTPClient
    let clock: any WallClock

    static let apiVersion = "v19.0"

    /// Meta's codes worth another try later: rate limits (4, 80007, 130429, 131056), its own trouble (1, 2, 131000,
    /// 131016, 133004) and an expired token (190) that an operator will replace. Anything else about the message
    /// (a template that does not exist or does not match, a number not on WhatsApp) fails the same way again.
    static let transientCodes: Set<Int> = [1, 2, 4, 190, 80007, 130429, 131000, 131016, 131056, 133004]

    private struct Reply: Decodable {
        struct Message: Decodable { var id: String }
        var messages: [Message]?
    }

    private struct ErrorReply: Decodable {
        struct Details: Decodable {
            var message: String?
            var code: Int?
            var error_data: ErrorData?
        }
        struct ErrorData: Decodable { var details: String? }
        var error: Details
    }

    func send(_ notification: PendingNotification) async -> SendOutcome {
        let composed: CustomerTextComposer.Composed
        switch await composer.write(notification) {
        case .unsent(let outcome): return outcome
        case .message(let message): composed = message
        }
        guard let name = templates[composed.key] else {
            return .rejected(reason: "no WhatsApp template is configured for \(composed.key)")
        }
        let parameters = (CustomerTexts.templateParameters[composed.key] ?? []).map {
            ["type": "text", "text": composed.values[$0] ?? ""]
        }
        var template: [String: Any] = [
            "name": name, "language": ["code": languages[composed.language] ?? composed.language],
        ]
        if !parameters.isEmpty { template["components"] = [["type": "body", "parameters": parameters]] }
        let document: [String: Any] = [
            "messaging_product": "whatsapp", "recipient_type": "individual",
            // Meta takes the number with its country code and without the plus.
            "to": String(notification.target.drop { $0 == "+" }), "type": "template", "template": template,
        ]
        var request = HTTPClientRequest(url: "\(baseURL)/\(Self.apiVersion)/\(phoneNumberId)/messages")
        request.method = .POST
        request.headers.add(name: "authorization", value: "Bearer \(token.value)")
        request.headers.add(name: "content-type", value: "application/json")
        do {
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: document)))
            let response = try await http.execute(request, timeout: .seconds(15))
            let body = await ProviderResponse.body(response)
            if response.status == .ok {
                let reply = try? JSONDecoder().decode(Reply.self, from: Data(buffer: body))
                return .delivered(providerId: reply?.messages?.first?.id)
            }
            let reason = ProviderResponse.describe(response.status, body)
            let error = try? JSONDecoder().decode(ErrorReply.self, from: Data(buffer: body))
            if let code = error?.error.code {
                return Self.transientCodes.contains(code)
                    ? .retry(reason: reason, after: ProviderResponse.retryAfter(response.headers, now: clock.now()))
                    : .rejected(reason: reason)
            }
            return ProviderResponse.isTransient(response.status)
                ? .retry(reason: reason, after: ProviderResponse.retryAfter(response.headers, now: clock.now()))
                : .rejected(reason: reason)
        } catch {
            return .retry(reason: "WhatsApp unreachable: \(error)", after: nil)
        }
    }
}

/// WhatsApp through Twilio: the Messages API with `whatsapp:` addresses. Twilio takes the body as text and
/// matches it to an approved template itself.
struct TwilioWhatsAppSender: NotificationSender {
    let twilio: TwilioTextSender
    var channel: NotificationChannel { .whatsapp }
    var concurrency: Int { twilio.concurrency }

    func send(_ notification: PendingNotification) async -> SendOutcome {
        var addressed = notification
        addressed.target = "whatsapp:" + notification.target
        return await twilio.send(addressed)
    }
}
