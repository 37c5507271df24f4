import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsStore
import NIOCore
import NIOHTTP1

/// Firebase Cloud Messaging, HTTP v1 API.
struct FCMSender: NotificationSender {
    let channel = NotificationChannel.fcm
    let concurrency: Int
    let baseURL: String
    let projectId: String
    let tokens: GoogleAccessTokens
    let http: HTTPClient
    let clock: any WallClock

    private struct Envelope: Encodable {
        struct Message: Encodable {
            var token: String
            var notification: [String: String]
            var data: [String: String]
            var android: [String: String]
        }
        var message: Message
    }

    private struct ErrorDocument: Decodable {
        struct Body: Decodable {
            var status: String?
            var message: String?
            var details: [Detail]?
        }
        struct Detail: Decodable {
            var errorCode: String?
            var fieldViolations: [FieldViolation]?
        }
        struct FieldViolation: Decodable { var field: String? }
        var error: Body

        /// INVALID_ARGUMENT about the token itself, not about the message's content: Firebase's token guide says
        /// such a token reaches no app. (A message the API refuses for its content says which field.)
        var isInvalidToken: Bool {
            guard
                error.status == "INVALID_ARGUMENT"
                    || (error.details ?? []).contains(where: {
                        $0.errorCode == "INVALID_ARGUMENT"
                    })
            else { return false }
            let fields = (error.details ?? []).flatMap { $0.fieldViolations ?? [] }.compactMap(\.field)
            return fields.contains("message.token") || (error.message ?? "").lowercased().contains("registration token")
        }
    }

    func send(_ notification: PendingNotification) async -> SendOutcome {
        let content = PushContent(notification)
        do {
            let accessToken = try await tokens.token()
            var request = HTTPClientRequest(url: "\(baseURL)/v1/projects/\(projectId)/messages:send")
            request.method = .POST
            request.headers.add(name: "authorization", value: "Bearer \(accessToken)")
            request.headers.add(name: "content-type", value: "application/json")
            let envelope = Envelope(
                message: .init(
                    token: notification.target, notification: ["title": content.title, "body": content.body],
                    data: content.data, android: ["priority": "high", "collapse_key": content.data["orderId"] ?? ""]))
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(envelope)))
            let response = try await http.execute(request, timeout: .seconds(15))
            let body = await ProviderResponse.body(response)
            return await outcome(response.status, body, response.headers)
        } catch let failed as GoogleAccessTokens.ExchangeFailed {
            return .retry(reason: failed.description, after: failed.retryAfter)
        } catch {
            return .retry(reason: "FCM unreachable: \(error)", after: nil)
        }
    }

    private func outcome(_ status: HTTPResponseStatus, _ body: ByteBuffer, _ headers: HTTPHeaders) async -> SendOutcome
    {
        if status == .ok { return .delivered(providerId: nil) }
        let document = try? JSONDecoder().decode(ErrorDocument.self, from: Data(buffer: body))
        let codes = Set(([document?.error.status] + (document?.error.details ?? []).map(\.errorCode)).compactMap { $0 })
        let reason = ProviderResponse.describe(status, body)
        if status == .notFound || codes.contains("UNREGISTERED") || document?.isInvalidToken == true {
            return .unregistered(reason: reason)
        }
        if status == .unauthorized {
            // The access token was revoked or expired early: fetch a new one on the next attempt.
            await tokens.invalidate()
            return .retry(reason: reason, after: 0)
        }
        if ProviderResponse.isTransient(status) || codes.contains("UNAVAILABLE") || codes.contains("INTERNAL")
            || codes.contains("QUOTA_EXCEEDED")
        {
            return .retry(reason: reason, after: ProviderResponse.retryAfter(headers, now: clock.now()))
        }
        return .rejected(reason: reason)
    }
}
