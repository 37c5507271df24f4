import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// One message of an order as dispatchers see it: what was said, to whom, and where each copy of it went.
struct NotificationRepresentation: Encodable {
    var id: Int
    var eventId: String
    var orderId: String
    var recipientId: String?
    var recipientRole: Role?
    var title: String?
    var body: String?
    var textKey: String?
    var createdAt: Date
    /// When a provider first took a copy; nil while none has (the customer may have no channel at all).
    var sentAt: Date?
    /// `queued`, `sent`, `delivered`, `failed`, `undelivered`, or `not sent` when nothing could carry it.
    var status: String
    var deliveries: [Delivery]

    struct Delivery: Encodable {
        var id: Int
        var channel: NotificationChannel
        /// The phone or device, masked: the list is for seeing what happened, not for harvesting numbers.
        var to: String
        var status: String
        var attempts: Int
        var error: String?
        var sentAt: Date?
        var fallbackOf: Int?
    }

    init(_ message: OutboxMessage, deliveries: [MessageDelivery]) {
        id = message.id
        eventId = message.eventId.lowercased
        orderId = message.orderId.lowercased
        recipientId = message.recipientId?.lowercased
        recipientRole = message.recipientRole
        title = message.title
        body = message.body
        textKey = message.textKey
        createdAt = message.createdAt
        self.deliveries = deliveries.map { delivery in
            Delivery(
                id: delivery.id, channel: delivery.channel,
                to: delivery.channel == .webhook ? delivery.target : PhoneNumber.masked(delivery.target),
                status: Self.status(of: delivery), attempts: delivery.attempts, error: delivery.lastError,
                sentAt: delivery.status == "SENT" ? delivery.finishedAt : nil, fallbackOf: delivery.fallbackOf)
        }
        sentAt = self.deliveries.compactMap(\.sentAt).min()
        // The newest copy says where the message is: a fallback after a failed text, or the only one.
        status = self.deliveries.last?.status ?? (message.sentAt == nil ? "queued" : "not sent")
    }

    static func status(of delivery: MessageDelivery) -> String {
        switch delivery.status {
        case "PENDING": "queued"
        case "SENT": delivery.providerStatus ?? "sent"
        case "DEAD": "failed"
        default: delivery.status.lowercased()
        }
    }
}
