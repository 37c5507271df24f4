import Foundation
import LogisticsCore
import LogisticsStore

struct StatusChangeRequest: Decodable {
    var status: TaskStatus
    var location: GeoPoint?
    /// Required when `location` is absent.
    var noLocationReason: NoLocationReason?
    var occurredAt: Date
    var eventId: UUID
    var farFromDestinationConfirmed: Bool?
    var reason: DeliveryIssueType?
}

struct OTPProofRequest: Decodable {
    var type: String
    var value: String
    var capturedAt: Date
    var location: GeoPoint
}

struct ReportIssueRequest: Decodable {
    var type: DeliveryIssueType
    var note: String?
    var location: GeoPoint?
    var occurredAt: Date?
}

struct DispatcherDecisionRequest: Decodable {
    var reason: String?
}

/// `POST /orders/{orderId}/return-to-store`: the dispatcher's reason for the log and the rider, and the kind the
/// customer is told in fixed words (OTHER when not given).
struct ReturnToStoreRequest: Decodable {
    var reason: String?
    var reasonKind: ReturnReason?
}
