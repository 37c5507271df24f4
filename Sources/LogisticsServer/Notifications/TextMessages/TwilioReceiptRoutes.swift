import Foundation
import HTTPTypes
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `POST /api/v1/providers/twilio/status`: Twilio's status callback for a message it took (`queued`, `sent`,
/// `delivered`, `undelivered`, `failed`, with `ErrorCode`). No bearer token: the request is Twilio's if its
/// `X-Twilio-Signature` is right for the URL Twilio was given (the public URL and the path) and the form it sent.
struct TwilioReceiptRoutes {
    let notifications: any NotificationRepository
    let publicAddress: PublicAddress
    /// The auth token; nil when Twilio is not the provider (the route then answers 404).
    let authToken: Redacted?
    let clock: any WallClock

    static let path = "/providers/twilio/status"
    /// The address Twilio is given (after the public URL) and signs.
    static let publicPath = "/api/v1" + path
    static let inboundPath = "/providers/twilio/inbound"

    func registerOpen(in routes: inout RouteTable) {
        routes.postWithoutToken(Self.path, status)
        routes.postWithoutToken(Self.inboundPath, inbound)
    }

    @Sendable func status(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let values = try await signedForm(request, path: Self.publicPath)
        guard let sid = values["MessageSid"], let status = values["MessageStatus"] ?? values["SmsStatus"] else {
            throw LogisticsError.validation(field: "MessageSid", "and MessageStatus are required")
        }
        let error = values["ErrorCode"].map { "Twilio \(status): error \($0)" }
        // A WhatsApp message sent through Twilio reports on the same callback, from a `whatsapp:` address.
        let channel: NotificationChannel = values["To"]?.hasPrefix("whatsapp:") == true ? .whatsapp : .sms
        _ = try await notifications.recordProviderStatus(
            channel: channel, providerId: sid, status: ProviderStatus.normalized(status), error: error,
            now: clock.now())
        // Twilio only needs a 2xx; a message this server does not know is not worth a retry either.
        return APIResponse(status: .noContent, body: Data(), contentType: "application/json")
    }

    /// Twilio's incoming-message webhook: STOP and START from a customer's phone (by SMS or WhatsApp) turn their
    /// texts off and on for every order. Twilio expects TwiML back; an empty `<Response/>` sends no reply (Twilio
    /// answers STOP itself).
    @Sendable func inbound(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let values = try await signedForm(request, path: "/api/v1" + Self.inboundPath)
        guard let from = values["From"], let body = values["Body"] else {
            throw LogisticsError.validation(field: "From", "and Body are required")
        }
        let phone = from.hasPrefix("whatsapp:") ? String(from.dropFirst("whatsapp:".count)) : from
        if PhoneNumber.isValid(phone), let keyword = OptOutKeyword.parse(body) {
            try await notifications.setTextOptOut(
                phone: phone, optedOut: keyword == .stop, source: "twilio", now: clock.now())
        }
        return APIResponse(
            status: .ok, body: Data(#"<?xml version="1.0" encoding="UTF-8"?><Response></Response>"#.utf8),
            contentType: "text/xml")
    }

    /// The form Twilio sent, once its `X-Twilio-Signature` is right for the URL Twilio was given and the form.
    private func signedForm(_ request: Request, path: String) async throws -> [String: String] {
        guard let authToken else { throw LogisticsError(.notFound, "Twilio is not this server's SMS provider") }
        var request = request
        guard request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true else {
            throw LogisticsError(.unsupportedMediaType, "Twilio's callbacks are forms")
        }
        let body = try await RequestBody.collect(&request, limit: 16 * 1024)
        let fields = Self.form(String(buffer: body))
        let url =
            publicAddress.base(requestAuthority: request.head.authority) + path
            + (request.uri.query.map { "?\($0)" } ?? "")
        guard let signature = request.headers[HTTPField.Name("X-Twilio-Signature")!],
            TwilioSignature.isValid(signature, url: url, parameters: fields, authToken: authToken.value)
        else { throw LogisticsError(.forbidden, "The X-Twilio-Signature does not match this request") }
        return Dictionary(fields, uniquingKeysWith: { first, _ in first })
    }

    /// `application/x-www-form-urlencoded` read as Twilio writes it: `+` is a space, the rest percent-decoded.
    static func form(_ text: String) -> [(String, String)] {
        text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            return parts.count == 2 ? (parts[0], parts[1]) : (parts[0], "")
        }
    }
}

/// Providers' words for where a message is, in the list's: `queued`, `sent`, `delivered`, `failed`, `undelivered`.
enum ProviderStatus {
    static func normalized(_ status: String) -> String {
        switch status.lowercased() {
        case "accepted", "scheduled", "queued", "sending": "queued"
        case "read": "delivered"
        case "canceled": "failed"
        default: status.lowercased()
        }
    }
}
