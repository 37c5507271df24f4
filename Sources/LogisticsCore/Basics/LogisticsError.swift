/// The machine-readable error codes of the API contract, with the HTTP status and a title fit to show
/// a rider or customer.
public enum ErrorCode: String, Sendable, CaseIterable, Codable {
    case unauthenticated = "UNAUTHENTICATED"
    case forbidden = "FORBIDDEN"
    case riderNotOnline = "RIDER_NOT_ONLINE"
    case notFound = "NOT_FOUND"
    case noActiveTask = "NO_ACTIVE_TASK"
    case offerExpired = "OFFER_EXPIRED"
    case orderAlreadyAssigned = "ORDER_ALREADY_ASSIGNED"
    case orderCancelled = "ORDER_CANCELLED"
    case riderHasActiveTask = "RIDER_HAS_ACTIVE_TASK"
    case noRiderAvailable = "NO_RIDER_AVAILABLE"
    case invalidStatusTransition = "INVALID_STATUS_TRANSITION"
    case podRequired = "POD_REQUIRED"
    case geofenceConfirmationRequired = "GEOFENCE_CONFIRMATION_REQUIRED"
    case invalidOTP = "INVALID_OTP"
    case otpLocked = "OTP_LOCKED"
    case validationFailed = "VALIDATION_FAILED"
    case payloadTooLarge = "PAYLOAD_TOO_LARGE"
    case unsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
    case idempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"
    case idempotencyRequestInProgress = "IDEMPOTENCY_REQUEST_IN_PROGRESS"
    case rateLimited = "RATE_LIMITED"
    case trackingNotAvailable = "TRACKING_NOT_AVAILABLE"
    case trackingEnded = "TRACKING_ENDED"
    case navigationUnavailable = "NAVIGATION_UNAVAILABLE"
    case locationNotRoutable = "LOCATION_NOT_ROUTABLE"
    case routeNotFound = "ROUTE_NOT_FOUND"
    case serviceUnavailable = "SERVICE_UNAVAILABLE"
    case methodNotAllowed = "METHOD_NOT_ALLOWED"
    case conflict = "CONFLICT"
    case phoneInUse = "PHONE_IN_USE"
    case invalidCode = "INVALID_CODE"
    case codeLocked = "CODE_LOCKED"
    case alreadyRated = "ALREADY_RATED"
    case notDelivered = "NOT_DELIVERED"
    case readyUndoExpired = "READY_UNDO_EXPIRED"
    case internalError = "INTERNAL_ERROR"

    public var httpStatus: Int {
        switch self {
        case .unauthenticated: 401
        case .forbidden, .riderNotOnline: 403
        case .notFound, .noActiveTask: 404
        case .methodNotAllowed: 405
        case .offerExpired, .trackingEnded: 410
        case .orderAlreadyAssigned, .orderCancelled, .riderHasActiveTask, .invalidStatusTransition, .podRequired,
            .noRiderAvailable,
            .trackingNotAvailable, .idempotencyRequestInProgress, .conflict, .phoneInUse, .alreadyRated, .notDelivered,
            .readyUndoExpired:
            409
        case .geofenceConfirmationRequired, .idempotencyKeyReused, .locationNotRoutable, .routeNotFound: 422
        case .invalidOTP, .validationFailed, .invalidCode: 400
        case .otpLocked, .codeLocked: 423
        case .payloadTooLarge: 413
        case .unsupportedMediaType: 415
        case .rateLimited: 429
        case .navigationUnavailable, .serviceUnavailable: 503
        case .internalError: 500
        }
    }

    public var title: String {
        switch self {
        case .unauthenticated: "Please sign in again"
        case .forbidden: "You are not allowed to do this"
        case .riderNotOnline: "Go online to accept offers"
        case .notFound: "We could not find that"
        case .noActiveTask: "You have no active delivery"
        case .offerExpired: "This offer has expired"
        case .orderAlreadyAssigned: "Another rider has already taken this order"
        case .orderCancelled: "This order has been cancelled"
        case .riderHasActiveTask: "Finish your current delivery first"
        case .noRiderAvailable: "No rider is available right now"
        case .invalidStatusTransition: "That step is not possible right now"
        case .podRequired: "Proof of delivery is needed before completing"
        case .geofenceConfirmationRequired: "You seem far from the delivery address. Please confirm you have arrived"
        case .invalidOTP: "That code is not correct"
        case .otpLocked: "Too many wrong codes. Take a photo or contact support"
        case .validationFailed: "Some of the information sent is not valid"
        case .payloadTooLarge: "What was sent is too large"
        case .unsupportedMediaType: "This type of content is not supported"
        case .idempotencyKeyReused: "This request key was already used for a different request"
        case .idempotencyRequestInProgress: "The same request is still being processed"
        case .rateLimited: "Too many requests. Please slow down"
        case .trackingNotAvailable: "Live tracking starts once your order is on its way"
        case .trackingEnded: "This delivery has ended"
        case .navigationUnavailable: "Navigation service is temporarily unavailable. Please try again shortly."
        case .locationNotRoutable: "That place is too far from a road we can route on"
        case .routeNotFound: "We could not find a road route between these places"
        case .serviceUnavailable: "The service is temporarily unavailable. Please try again shortly"
        case .methodNotAllowed: "This action is not supported here"
        case .conflict: "This conflicts with the current state"
        case .phoneInUse: "Someone already has this phone number"
        case .invalidCode: "That code is not correct"
        case .codeLocked: "Too many wrong codes. Ask for a new code"
        case .alreadyRated: "You have already rated this delivery"
        case .notDelivered: "You can rate your delivery once it has arrived"
        case .readyUndoExpired: "It is too late to take \"Ready\" back"
        case .internalError: "Something went wrong on our side"
        }
    }
}

/// A value attached to an error to help the client (`attemptsRemaining`, `distanceM`, …).
public enum ProblemValue: Sendable, Equatable {
    case int(Int)
    case double(Double)
    case string(String)
    case strings([String])
    case fieldErrors([FieldError])
}

/// A domain failure that the API reports as a problem document.
public struct LogisticsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var detail: String
    public var extras: [String: ProblemValue]
    public var retryAfterSeconds: Int?

    public init(
        _ code: ErrorCode,
        _ detail: String,
        extras: [String: ProblemValue] = [:],
        retryAfterSeconds: Int? = nil
    ) {
        self.code = code
        self.detail = detail
        self.extras = extras
        self.retryAfterSeconds = retryAfterSeconds
    }

    public static func validation(_ errors: [FieldError]) -> LogisticsError {
        let summary = errors.map { "\($0.field): \($0.message)" }.joined(separator: "; ")
        return LogisticsError(.validationFailed, summary, extras: ["errors": .fieldErrors(errors)])
    }

    public static func validation(field: String, _ message: String) -> LogisticsError {
        validation([FieldError(field: field, message: message)])
    }

    public static func notFound(_ what: String) -> LogisticsError {
        LogisticsError(.notFound, "No \(what) with that id is visible to you")
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}

extension LogisticsError {
    /// 409 INVALID_STATUS_TRANSITION for a task, with the fields a rider app needs to recover.
    public static func invalidTransition(from status: TaskStatus, _ detail: String) -> LogisticsError {
        LogisticsError(
            .invalidStatusTransition, detail,
            extras: [
                "currentStatus": .string(status.rawValue), "allowedNext": .strings(status.allowedNext.map(\.rawValue)),
            ])
    }

    /// 409 INVALID_STATUS_TRANSITION for an order-level action (ready, cancel, offers).
    public static func invalidTransition(from status: OrderStatus, _ detail: String) -> LogisticsError {
        LogisticsError(
            .invalidStatusTransition, detail,
            extras: ["currentStatus": .string(status.rawValue), "allowedNext": .strings([])])
    }
}
