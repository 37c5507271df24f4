/// The delivery leg's status, driven by the rider's taps.
public enum TaskStatus: String, Codable, Sendable, CaseIterable {
    case accepted = "ACCEPTED"
    case arrivedAtStore = "ARRIVED_AT_STORE"
    case pickedUp = "PICKED_UP"
    case arrivedAtDestination = "ARRIVED_AT_DESTINATION"
    case delivered = "DELIVERED"
    case cancelled = "CANCELLED"
    case failed = "FAILED"
    /// A dispatcher sent the parcel back after pickup: the rider's next stop is the store again.
    case returningToStore = "RETURNING_TO_STORE"
    case returnedToStore = "RETURNED_TO_STORE"

    public var isFinal: Bool {
        self == .delivered || self == .cancelled || self == .failed || self == .returnedToStore
    }

    /// The final statuses as an SQL list, for the queries that look only at unfinished tasks.
    public static let finalSQLList = "('DELIVERED', 'CANCELLED', 'FAILED', 'RETURNED_TO_STORE')"

    /// Statuses the rider may move to next (BR-RDR-STATUS-SEQ). CANCELLED is not the rider's to set.
    public var allowedNext: [TaskStatus] {
        switch self {
        case .accepted: [.arrivedAtStore]
        case .arrivedAtStore: [.pickedUp]
        case .pickedUp: [.arrivedAtDestination, .failed]
        case .arrivedAtDestination: [.delivered, .failed]
        case .returningToStore: [.returnedToStore]
        case .delivered, .cancelled, .failed, .returnedToStore: []
        }
    }

    /// Where the rider heads next: the store until pickup, the customer after; nil once the task has ended.
    public var nextStop: StopKind? {
        switch self {
        case .accepted, .arrivedAtStore, .returningToStore: .store
        case .pickedUp, .arrivedAtDestination: .customer
        case .delivered, .cancelled, .failed, .returnedToStore: nil
        }
    }

    /// The order status a customer sees once the task reaches this status.
    public var orderStatus: OrderStatus {
        switch self {
        case .accepted, .arrivedAtStore: .riderAssigned
        case .pickedUp: .inTransit
        case .arrivedAtDestination: .arrivedAtDestination
        case .delivered: .delivered
        case .cancelled: .cancelled
        case .failed: .failed
        case .returningToStore: .returningToStore
        case .returnedToStore: .returned
        }
    }
}

/// Why a rider could not complete a delivery: the problems riders meet, each reported with an optional note.
public enum DeliveryIssueType: String, Codable, Sendable, CaseIterable {
    case customerUnavailable = "CUSTOMER_UNAVAILABLE"
    case addressNotFound = "ADDRESS_NOT_FOUND"
    /// The address leads somewhere, but not to this customer (another building, a closed gate, a wrong flat).
    case wrongAddress = "WRONG_ADDRESS"
    case storeClosed = "STORE_CLOSED"
    case orderNotReady = "ORDER_NOT_READY"
    case vehicleTrouble = "VEHICLE_TROUBLE"
    /// The rider does not feel safe going on (a place, a person, the weather).
    case unsafe = "UNSAFE"
    case other = "OTHER"
}

/// The two stops of a delivery.
public enum StopKind: String, Codable, Sendable {
    case store = "STORE"
    case customer = "CUSTOMER"
}

/// Why a status change comes without a position: the phone would not give one, had none yet, or was on a page
/// a browser gives no position to (plain HTTP). The event log keeps it.
public enum NoLocationReason: String, Codable, Sendable, CaseIterable {
    case permissionDenied = "PERMISSION_DENIED"
    case noFix = "NO_FIX"
    case insecureOrigin = "INSECURE_ORIGIN"
}
