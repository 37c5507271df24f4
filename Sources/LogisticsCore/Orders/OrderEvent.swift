import Foundation

/// One immutable entry of an order's audit log.
public struct OrderEvent: Sendable, Equatable {
    public var id: UUID
    public var orderId: UUID
    public var taskId: UUID?
    public var seq: Int
    public var type: String
    public var status: String?
    public var occurredAt: Date
    public var receivedAt: Date
    public var location: GeoPoint?
    public var actorId: UUID
    public var actorRole: Role
    public var geofenceDistanceM: Double?
    public var geofenceOverride: Bool
    public var details: [String: String]

    public init(
        id: UUID, orderId: UUID, taskId: UUID?, seq: Int, type: String, status: String?, occurredAt: Date,
        receivedAt: Date, location: GeoPoint?, actorId: UUID, actorRole: Role, geofenceDistanceM: Double? = nil,
        geofenceOverride: Bool = false, details: [String: String] = [:]
    ) {
        self.id = id
        self.orderId = orderId
        self.taskId = taskId
        self.seq = seq
        self.type = type
        self.status = status
        self.occurredAt = occurredAt
        self.receivedAt = receivedAt
        self.location = location
        self.actorId = actorId
        self.actorRole = actorRole
        self.geofenceDistanceM = geofenceDistanceM
        self.geofenceOverride = geofenceOverride
        self.details = details
    }
}

/// Event type names as they appear in the log, the outbox and webhooks.
public enum OrderEventType {
    public static let orderCreated = "OrderCreated"
    public static let orderReady = "OrderReadyForPickup"
    /// The store took "Ready" back within the minute it may (`ReadyUndo`); the order waits for the store again.
    public static let orderReadyUndone = "OrderReadyUndone"
    public static let orderCancelled = "OrderCancelled"
    public static let offersMade = "OffersMade"
    public static let orderAssigned = "OrderAssigned"
    public static let deliveryStatusUpdated = "DeliveryStatusUpdated"
    public static let proofOfDeliveryAccepted = "ProofOfDeliveryAccepted"
    public static let deliveryIssueReported = "DeliveryIssueReported"
    public static let deliveryCodeLocked = "DeliveryCodeLocked"
    public static let proofOfDeliveryOverridden = "ProofOfDeliveryOverridden"
    /// A dispatcher took the order from its rider before pickup; it is ready to be offered again.
    public static let orderReassigned = "OrderReassigned"
    /// A dispatcher sent a picked-up parcel back to the store; the rider's RETURNED_TO_STORE ends it as RETURNED.
    public static let returnToStoreRequested = "ReturnToStoreRequested"
    /// A photo taken after the code was locked: kept for a dispatcher, who completes the delivery with an override.
    public static let proofOfDeliveryAwaitingOverride = "ProofOfDeliveryAwaitingOverride"
    public static let failureApproved = "FailureApproved"
    /// Automatic dispatch found nobody after its rounds (or nobody within reach): dispatchers take over.
    public static let dispatchEscalated = "DispatchEscalated"

    /// Every type, for validating webhook subscriptions.
    public static let all: [String] = [
        orderCreated, orderReady, orderCancelled, offersMade, orderAssigned, deliveryStatusUpdated,
        proofOfDeliveryAccepted, deliveryIssueReported, deliveryCodeLocked, proofOfDeliveryOverridden,
        failureApproved, dispatchEscalated, proofOfDeliveryAwaitingOverride, orderReassigned,
        returnToStoreRequested, orderReadyUndone,
    ]
}

/// A push message waiting in the outbox for a customer, rider or dispatcher. `title` and `body` are the English
/// text (what the rider's stream shows); `textKey` and `arguments` let push providers render the recipient
/// device's language from `NotificationCatalog`.
public struct QueuedNotification: Sendable, Equatable {
    public var recipientId: UUID?
    public var recipientRole: Role
    public var title: String
    public var body: String
    public var textKey: String?
    public var arguments: [String: String]

    public init(
        recipientId: UUID?, recipientRole: Role, title: String, body: String, textKey: String? = nil,
        arguments: [String: String] = [:]
    ) {
        self.recipientId = recipientId
        self.recipientRole = recipientRole
        self.title = title
        self.body = body
        self.textKey = textKey
        self.arguments = arguments
    }

    /// A notification whose text comes from the catalog (English stored, other languages rendered at send time).
    public static func catalog(
        _ key: String, to recipientId: UUID, role: Role, arguments: [String: String] = [:]
    ) -> QueuedNotification {
        // A customer's copy is stored in customer words: a dispatcher's own reason stays in the log.
        let words = role == .customer ? CustomerTexts.customerArguments(arguments, locale: nil) : arguments
        let english = NotificationCatalog.text(key, locale: NotificationCatalog.fallbackLocale, arguments: words)
        precondition(english != nil, "\(key) is missing from the English catalog")
        return QueuedNotification(
            recipientId: recipientId, recipientRole: role, title: english!.title, body: english!.body, textKey: key,
            arguments: arguments)
    }
}
