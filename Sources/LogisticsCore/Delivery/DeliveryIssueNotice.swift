/// What the customer is told when a rider reports a problem: a fixed sentence of the catalog per kind, in the
/// customer's language, never the rider's note (which only dispatchers read).
extension DeliveryIssueType {
    /// A rider's note on a problem is a few words for the dispatcher, not a letter.
    public static let maximumNoteLength = 500

    /// The catalog key of the customer's message for this problem reported in `status`, or nil when the customer is
    /// not told: "unsafe" is the dispatcher's to handle, and "at your door" is only true once the rider is there.
    public func customerNotice(at status: TaskStatus) -> String? {
        switch self {
        case .customerUnavailable: status == .arrivedAtDestination ? NotificationKey.customerUnavailable : nil
        case .addressNotFound: NotificationKey.addressNotFound
        case .wrongAddress: NotificationKey.wrongAddress
        case .storeClosed: NotificationKey.storeClosed
        case .orderNotReady: NotificationKey.orderNotReadyAtStore
        case .vehicleTrouble: NotificationKey.riderVehicleTrouble
        case .unsafe: nil
        case .other: NotificationKey.deliveryProblem
        }
    }

    /// Whether a rider meets this problem at this point of the delivery: the store's problems before pickup, the
    /// customer's after it, the rest at any time. The app offers only these; the server takes any kind.
    public func fits(_ status: TaskStatus) -> Bool {
        switch self {
        case .storeClosed, .orderNotReady: status.nextStop == .store
        case .customerUnavailable, .addressNotFound, .wrongAddress: status.nextStop == .customer
        case .vehicleTrouble, .unsafe, .other: true
        }
    }
}

/// Why a dispatcher took an order from a rider before pickup, as the rider is told it: a fixed sentence per kind
/// (the dispatcher's own words stay in the event log).
public enum ReassignReason: String, Codable, Sendable, CaseIterable {
    /// The rider was taking too long to reach the store.
    case riderDelayed = "RIDER_DELAYED"
    /// Another rider is much nearer the store.
    case closerRider = "CLOSER_RIDER"
    /// The rider reported a problem (vehicle trouble, unsafe) or asked to be taken off it.
    case riderProblem = "RIDER_PROBLEM"
    /// The store or the customer changed the plan (a new time, a different vehicle).
    case planChanged = "PLAN_CHANGED"
    case other = "OTHER"

    /// The catalog key of the rider's message.
    public var notificationKey: String { NotificationKey.orderReassigned + "." + rawValue }
}
