import Foundation
import LogisticsCore

/// What live tracking learns from the rest of the system: a rider's fix, or an order event from the outbox.
/// These are what instances pass to each other, so every instance's hub sees every update.
enum TrackingUpdate: Sendable {
    case fix(riderId: UUID, fix: LocationFix)
    case event(OrderEventNotice)
    /// A message for one person's own socket (a rider's offers and dispatcher messages), ready to send.
    case notice(recipientId: UUID, message: String)
}

/// An order event as published by the outbox, kept as the outbox's JSON for dispatchers' streams.
struct OrderEventNotice: Sendable {
    var id: UUID
    var orderId: UUID
    var status: OrderStatus?
    var occurredAt: Date
    var json: String

    private struct Fields: Decodable {
        var id: UUID
        var orderId: UUID
        var status: String?
        var occurredAt: String
    }

    init?(json: String) {
        guard let fields = try? JSONDecoder().decode(Fields.self, from: Data(json.utf8)),
            let occurredAt = RFC3339.date(from: fields.occurredAt)
        else { return nil }
        id = fields.id
        orderId = fields.orderId
        // Task statuses are published as the customer-facing order status they imply.
        status = fields.status.flatMap { TaskStatus(rawValue: $0)?.orderStatus ?? OrderStatus(rawValue: $0) }
        self.occurredAt = occurredAt
        self.json = json
    }
}

/// Hands tracking updates to every instance's hub.
protocol TrackingRelay: Sendable {
    func publish(_ updates: [TrackingUpdate])
}

/// One instance (SQLite, or PostgreSQL without fan-out): straight into the local hub.
struct LocalTrackingRelay: TrackingRelay {
    let hub: TrackingHub

    func publish(_ updates: [TrackingUpdate]) { hub.apply(updates) }
}
