import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsStore
import NIOCore
import NIOHTTP1

/// What a provider said about one attempt.
enum SendOutcome: Sendable, Equatable {
    /// Taken by the provider; `providerId` is its id for the message when it reports progress later (Twilio's
    /// message SID).
    case delivered(providerId: String?)
    /// Worth trying again (throttled, provider trouble, network); `after` is the provider's Retry-After.
    case retry(reason: String, after: TimeInterval?)
    /// The provider refused the message itself; sending it again would fail the same way.
    case rejected(reason: String)
    /// The push token no longer reaches a device.
    case unregistered(reason: String)
}

/// One way out of the system (FCM, APNs, webhooks), with how many sends it may have in flight.
protocol NotificationSender: Sendable {
    var channel: NotificationChannel { get }
    var concurrency: Int { get }
    func send(_ notification: PendingNotification) async -> SendOutcome
}

/// The title and body in the device's language, and the data every push carries.
struct PushContent: Equatable {
    var title: String
    var body: String
    var data: [String: String]

    init(_ notification: PendingNotification) {
        let localized = notification.textKey.flatMap { key in
            // A customer's push says why in fixed words, like their texts; a rider's keeps the dispatcher's own.
            let arguments =
                key.hasPrefix("customer.")
                ? CustomerTexts.customerArguments(notification.textArguments, locale: notification.locale)
                : notification.textArguments
            return NotificationCatalog.text(key, locale: notification.locale, arguments: arguments)
        }
        title = localized?.title ?? notification.title ?? ""
        body = localized?.body ?? notification.body ?? ""
        var data = ["orderId": notification.orderId.lowercased, "eventId": notification.eventId.lowercased]
        if let status = OutboxEventHead(json: notification.payload)?.status { data["status"] = status }
        self.data = data
    }
}

/// Reading providers' answers.
enum ProviderResponse {
    /// `Retry-After` as seconds or an HTTP date.
    static func retryAfter(_ headers: HTTPHeaders, now: Date) -> TimeInterval? {
        guard let value = headers.first(name: "retry-after")?.trimmingCharacters(in: .whitespaces) else {
            return nil
        }
        if let seconds = Double(value) { return max(seconds, 0) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max($0.timeIntervalSince(now), 0) }
    }

    /// Throttling and server trouble are retried; so is a timeout.
    static func isTransient(_ status: HTTPResponseStatus) -> Bool {
        status == .tooManyRequests || status == .requestTimeout || status.code >= 500
    }

    /// The body, bounded: providers' error documents are small, and a misbehaving endpoint must not fill memory.
    static func body(_ response: HTTPClientResponse) async -> ByteBuffer {
        (try? await response.body.collect(upTo: 64 * 1024)) ?? ByteBuffer()
    }

    /// A short description of a failed exchange for logs and dead letters.
    static func describe(_ status: HTTPResponseStatus, _ body: ByteBuffer) -> String {
        let text = String(buffer: body).prefix(300)
        return text.isEmpty ? "HTTP \(status.code)" : "HTTP \(status.code): \(text)"
    }
}
