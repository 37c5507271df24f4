import Foundation

/// The rules a rider's status change must satisfy, decided without touching storage.
public enum DeliveryRules {
    public static let maximumOTPAttempts = 5
    /// Enough to retake a blurred photo or show the door and the parcel; more only fills the blob store.
    public static let maximumPhotosPerTask = 5
    /// A device clock may run ahead a little; further ahead is a bad timestamp, not a real tap.
    public static let futureToleranceSeconds: TimeInterval = 120
    /// Phone clocks drift; a tap stamped a few seconds before the server recorded the acceptance is
    /// still a tap after it.
    public static let acceptanceSkewToleranceMillis: Int64 = 5_000

    public struct Settings: Sendable {
        public var geofenceRadiusM: Double
        public var failedWaitSeconds: TimeInterval

        public init(geofenceRadiusM: Double, failedWaitSeconds: TimeInterval) {
            self.geofenceRadiusM = geofenceRadiusM
            self.failedWaitSeconds = failedWaitSeconds
        }
    }

    /// A status change a rider asked for. Without a position it carries why the phone had none.
    public struct StatusChange: Sendable {
        public var status: TaskStatus
        public var location: GeoPoint?
        public var noLocationReason: NoLocationReason?
        public var occurredAt: Date
        public var farFromDestinationConfirmed: Bool
        public var reason: DeliveryIssueType?

        public init(
            status: TaskStatus, location: GeoPoint?, noLocationReason: NoLocationReason? = nil, occurredAt: Date,
            farFromDestinationConfirmed: Bool, reason: DeliveryIssueType?
        ) {
            self.status = status
            self.location = location
            self.noLocationReason = noLocationReason
            self.occurredAt = occurredAt
            self.farFromDestinationConfirmed = farFromDestinationConfirmed
            self.reason = reason
        }
    }

    /// What the change will record about the geofence.
    public struct Verdict: Sendable, Equatable {
        public var geofenceDistanceM: Double?
        public var geofenceOverride: Bool
    }

    /// Checks a change against the task's state; throws the API error that explains a refusal.
    public static func check(
        _ change: StatusChange, task: DeliveryTask, order: Order, now: Date, settings: Settings
    ) throws -> Verdict {
        if order.status == .cancelled || task.status == .cancelled {
            throw LogisticsError(.orderCancelled, "The order was cancelled; stop this delivery")
        }
        if change.occurredAt.timeIntervalSince(now) > futureToleranceSeconds {
            throw LogisticsError.validation(field: "occurredAt", "must not be more than 2 minutes in the future")
        }
        if change.occurredAt.epochMillis < task.acceptedAt.epochMillis - acceptanceSkewToleranceMillis {
            throw LogisticsError.validation(field: "occurredAt", "must not be before the task was accepted")
        }
        guard task.status.allowedNext.contains(change.status) else {
            throw LogisticsError.invalidTransition(
                from: task.status, "\(change.status.rawValue) cannot follow \(task.status.rawValue)")
        }
        var verdict = Verdict(geofenceDistanceM: nil, geofenceOverride: false)
        switch change.status {
        case .arrivedAtDestination:
            guard let location = change.location else {
                // No position to check the door against: the rider says so, as when far away.
                guard change.farFromDestinationConfirmed else {
                    throw LogisticsError(
                        .geofenceConfirmationRequired, "Your location is not known; confirm you are at the address",
                        extras: ["radiusM": .double(settings.geofenceRadiusM)])
                }
                verdict.geofenceOverride = true
                break
            }
            let distance = location.distanceM(to: order.customer.location)
            verdict.geofenceDistanceM = distance
            if distance > settings.geofenceRadiusM {
                guard change.farFromDestinationConfirmed else {
                    throw LogisticsError(
                        .geofenceConfirmationRequired,
                        "You are \(Int(distance.rounded())) m from the delivery address",
                        extras: ["distanceM": .double(distance), "radiusM": .double(settings.geofenceRadiusM)])
                }
                verdict.geofenceOverride = true
            }
        case .delivered:
            guard task.podAccepted || task.podOverride else {
                if awaitsOverride(task, order) {
                    throw LogisticsError(
                        .podRequired,
                        "The customer's code was locked after too many wrong tries: a dispatcher must confirm this "
                            + "delivery before it is completed")
                }
                throw LogisticsError(.podRequired, "Submit a photo or the customer's code before completing")
            }
        case .failed:
            guard change.reason != nil else {
                throw LogisticsError.validation(field: "reason", "is required for FAILED")
            }
            if !task.failureApproved {
                guard let reportedAt = task.issueReportedAt else {
                    throw LogisticsError.invalidTransition(
                        from: task.status, "Report an issue first; FAILED is allowed after waiting or with approval")
                }
                let waited = now.timeIntervalSince(reportedAt)
                if waited < settings.failedWaitSeconds {
                    var error = LogisticsError.invalidTransition(
                        from: task.status, "Wait for the customer a little longer, or ask a dispatcher to approve")
                    error.extras["waitSeconds"] = .int(Int((settings.failedWaitSeconds - waited).rounded(.up)))
                    throw error
                }
            }
        default:
            break
        }
        return verdict
    }

    /// Proof of delivery is taken only at the customer's address, on a task still under way.
    public static func checkProofStage(_ task: DeliveryTask, orderCancelled: Bool = false) throws {
        if orderCancelled || task.status == .cancelled {
            throw LogisticsError(.orderCancelled, "The order was cancelled; stop this delivery")
        }
        guard task.status == .arrivedAtDestination else {
            throw LogisticsError.invalidTransition(
                from: task.status, "Proof of delivery is taken at the customer's address")
        }
    }

    /// Which proofs a task accepts: the order's own type; a photo once the code is locked; anything
    /// after a dispatcher's override.
    public static func checkProof(_ type: ProofOfDeliveryType, task: DeliveryTask, order: Order) throws {
        try checkProofStage(task, orderCancelled: order.status == .cancelled)
        let allowed = order.podType == type || task.podOverride || (type == .photo && task.otpLocked)
        guard allowed else {
            throw LogisticsError.validation(
                field: "type",
                "this order is completed with \(order.podType == .otp ? "the customer's code" : "a photo")")
        }
    }

    /// A code order whose code was locked by wrong tries is completed only after a dispatcher's override: a photo
    /// taken then is evidence for the dispatcher, not proof (any JPEG-looking bytes would do).
    public static func awaitsOverride(_ task: DeliveryTask, _ order: Order) -> Bool {
        order.podType == .otp && task.otpLocked && !task.podOverride && !task.podAccepted
    }

    /// What a photo's place says about the door: its distance from the customer and whether it is within the
    /// geofence, recorded with the photo for whoever judges it.
    public static func photoPlace(_ location: GeoPoint, order: Order, radiusM: Double) -> [String: String] {
        let distance = location.distanceM(to: order.customer.location)
        return [
            "distanceM": String(Int(distance.rounded())), "radiusM": String(Int(radiusM.rounded())),
            "withinGeofence": distance <= radiusM ? "true" : "false",
        ]
    }

    /// 409 CONFLICT once a task holds its photos: `taken` counts the photos already stored for it.
    public static func checkPhotoRoom(taken: Int) throws {
        guard taken < maximumPhotosPerTask else {
            throw LogisticsError(
                .conflict, "This delivery already has \(maximumPhotosPerTask) photos; no more are accepted",
                extras: ["maximumPhotos": .int(maximumPhotosPerTask)])
        }
    }

    /// The customer-facing push for a status, if it has one.
    public static func customerNotification(for status: TaskStatus, order: Order) -> QueuedNotification? {
        let key: String? =
            switch status {
            case .pickedUp: NotificationKey.pickedUp
            case .arrivedAtDestination: NotificationKey.riderArrived
            case .delivered: NotificationKey.delivered
            case .failed: NotificationKey.deliveryFailed
            case .returnedToStore: NotificationKey.orderReturned
            default: nil
            }
        return key.map {
            QueuedNotification.catalog(
                $0, to: order.customer.id, role: .customer, arguments: ["vendor": order.vendor.name])
        }
    }
}
