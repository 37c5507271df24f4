/// The customer-facing status of an order.
public enum OrderStatus: String, Codable, Sendable, CaseIterable {
    case pendingVendorAcceptance = "PENDING_VENDOR_ACCEPTANCE"
    case preparing = "PREPARING"
    case readyForPickup = "READY_FOR_PICKUP"
    case riderAssigned = "RIDER_ASSIGNED"
    case inTransit = "IN_TRANSIT"
    case arrivedAtDestination = "ARRIVED_AT_DESTINATION"
    case delivered = "DELIVERED"
    case cancelled = "CANCELLED"
    case failed = "FAILED"
    /// Picked up, then sent back to the store by a dispatcher; RETURNED once the rider hands it back.
    case returningToStore = "RETURNING_TO_STORE"
    case returned = "RETURNED"

    public var isFinal: Bool { self == .delivered || self == .cancelled || self == .failed || self == .returned }

    /// The final statuses as an SQL list, for the queries that look only at open orders.
    public static let finalSQLList = "('DELIVERED', 'CANCELLED', 'FAILED', 'RETURNED')"
}

/// Whether a rider can take work.
public enum RiderAvailability: String, Codable, Sendable, CaseIterable {
    case offline = "OFFLINE"
    case online = "ONLINE"
    case onTask = "ON_TASK"
}

/// How the rider proves the parcel reached the customer.
public enum ProofOfDeliveryType: String, Codable, Sendable, CaseIterable {
    case photo = "PHOTO"
    case otp = "OTP"

    /// Unknown values fall back to PHOTO (requirement: an unknown podType is stored as PHOTO).
    public static func lenient(_ raw: String?) -> (type: ProofOfDeliveryType, wasUnknown: Bool) {
        guard let raw else { return (.photo, false) }
        if let known = ProofOfDeliveryType(rawValue: raw.uppercased()) { return (known, false) }
        return (.photo, true)
    }
}

public enum OfferStatus: String, Codable, Sendable {
    case open = "OPEN"
    case accepted = "ACCEPTED"
    case declined = "DECLINED"
    case expired = "EXPIRED"
    case superseded = "SUPERSEDED"
    case cancelled = "CANCELLED"
}

public enum Role: String, Codable, Sendable, CaseIterable {
    case rider, customer, dispatcher, admin, vendor

    /// Staff who run the operation and may see every order.
    public var isStaff: Bool { self == .dispatcher || self == .admin }
}
