import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

struct NotificationRepresentation: Encodable {
    var id: Int
    var eventId: String
    var orderId: String
    var recipientId: String?
    var recipientRole: Role?
    var title: String?
    var body: String?
    var createdAt: Date
    var sentAt: Date?

    init(_ message: OutboxMessage) {
        id = message.id
        eventId = message.eventId.lowercased
        orderId = message.orderId.lowercased
        recipientId = message.recipientId?.lowercased
        recipientRole = message.recipientRole
        title = message.title
        body = message.body
        createdAt = message.createdAt
        sentAt = message.sentAt
    }
}
