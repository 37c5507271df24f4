import Foundation

/// The store a parcel is collected from.
public struct VendorStop: Codable, Sendable, Equatable {
    public var name: String
    public var address: String
    public var location: GeoPoint

    public init(name: String, address: String, location: GeoPoint) {
        self.name = name
        self.address = address
        self.location = location
    }
}

/// The person a parcel goes to.
public struct CustomerContact: Codable, Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var phone: String
    public var address: String
    public var location: GeoPoint
    /// The language the customer's messages are written in (`en`, `hi`, `mr`, or a tag such as `hi-IN`); nil or
    /// one the catalog lacks is English.
    public var locale: String?
    /// How the customer hears about the order, most preferred first; nil is the server's default.
    public var notify: [CustomerChannel]?

    public init(
        id: UUID, name: String, phone: String, address: String, location: GeoPoint, locale: String? = nil,
        notify: [CustomerChannel]? = nil
    ) {
        self.id = id
        self.name = name
        self.phone = phone
        self.address = address
        self.location = location
        self.locale = locale
        self.notify = notify
    }

    /// The phone as E.164 once spaces, dashes, dots and brackets are dropped; nil when it cannot take a text.
    public var textablePhone: String? { PhoneNumber.textable(phone) }

    /// The phone number as a rider sees it: enough to recognise, not enough to harvest.
    public var maskedPhone: String {
        let digits = phone.filter(\.isNumber)
        guard digits.count > 4 else { return String(repeating: "*", count: digits.count) }
        return String(repeating: "*", count: digits.count - 4) + digits.suffix(4)
    }
}

public struct Order: Sendable, Equatable {
    public var id: UUID
    public var externalRef: String?
    public var createdBy: UUID
    /// The registered store the order is picked up from, whoever created it: its staff see and manage the order.
    /// Nil for a one-off pickup place that is no registered store.
    public var vendorId: UUID?
    public var vendor: VendorStop
    public var customer: CustomerContact
    public var podType: ProofOfDeliveryType
    public var notes: String?
    public var status: OrderStatus
    public var assignedRiderId: UUID?
    public var taskId: UUID?
    public var otpSeed: String?
    public var otpHash: String?
    public var cancelReason: String?
    /// When the vendor expects the goods to be ready (creation plus the preparation time it gave), so a rider can
    /// be sent ahead to arrive as they are.
    public var expectedReadyAt: Date?
    /// When the vendor marked the order ready; it may come after a rider was assigned from the expected time.
    public var readyAt: Date?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UUID, externalRef: String?, createdBy: UUID, vendorId: UUID? = nil, vendor: VendorStop,
        customer: CustomerContact, podType: ProofOfDeliveryType, notes: String?, status: OrderStatus,
        assignedRiderId: UUID? = nil,
        taskId: UUID? = nil, otpSeed: String? = nil, otpHash: String? = nil, cancelReason: String? = nil,
        expectedReadyAt: Date? = nil, readyAt: Date? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.externalRef = externalRef
        self.createdBy = createdBy
        self.vendorId = vendorId
        self.vendor = vendor
        self.customer = customer
        self.podType = podType
        self.notes = notes
        self.status = status
        self.assignedRiderId = assignedRiderId
        self.taskId = taskId
        self.otpSeed = otpSeed
        self.otpHash = otpHash
        self.cancelReason = cancelReason
        self.expectedReadyAt = expectedReadyAt
        self.readyAt = readyAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A request to create an order, already validated.
extension Order {
    /// Waiting for a rider: ready, or still being prepared with a preparation time, so automatic dispatch may send
    /// a rider ahead to arrive as the goods are ready. Manual offers still wait for READY_FOR_PICKUP.
    public var awaitsRider: Bool {
        assignedRiderId == nil && (status == .readyForPickup || (status == .preparing && expectedReadyAt != nil))
    }

    /// Seconds until the vendor expects the goods, for an order still being prepared with a preparation time; nil
    /// otherwise (ready, or no time given).
    public func secondsUntilReady(at now: Date) -> Double? {
        guard status == .preparing, let expectedReadyAt else { return nil }
        return max(0, expectedReadyAt.timeIntervalSince(now))
    }
}

public struct NewOrder: Sendable {
    public var externalRef: String?
    /// The registered store, when the order names one (its registered name and place are `vendor`).
    public var vendorId: UUID?
    public var vendor: VendorStop
    public var customer: CustomerContact
    public var podType: ProofOfDeliveryType
    public var notes: String?
    /// The vendor's estimate of how long the goods take to prepare, if it gave one.
    public var preparationMinutes: Int?

    public init(
        externalRef: String?, vendorId: UUID? = nil, vendor: VendorStop, customer: CustomerContact,
        podType: ProofOfDeliveryType, notes: String?, preparationMinutes: Int? = nil
    ) {
        self.externalRef = externalRef
        self.vendorId = vendorId
        self.vendor = vendor
        self.customer = customer
        self.podType = podType
        self.notes = notes
        self.preparationMinutes = preparationMinutes
    }
}
