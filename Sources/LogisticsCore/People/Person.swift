import Foundation

/// What a rider rides: it times them (`RiderTravelTime`: a bicycle no faster than its own speed on the motorcycle
/// graph's roads), and pay rules may tell them apart.
public enum Vehicle: String, Sendable, Codable, CaseIterable {
    case bicycle = "BICYCLE"
    case motorcycle = "MOTORCYCLE"
    case car = "CAR"
}

/// Someone who works for the courier company or one of its stores and signs in with their phone: a rider, a
/// store's staff member (role `vendor`, acting for their store), a dispatcher or an admin. Customers are not
/// people here: they follow their orders through tracking links.
public struct Person: Sendable, Equatable {
    public var id: UUID
    public var role: Role
    public var name: String
    /// E.164; nil for riders first met through a token, before this record existed.
    public var phone: String?
    /// The store a staff member acts for (the subject of their tokens).
    public var vendorId: UUID?
    public var vehicle: Vehicle?
    public var suspended: Bool
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UUID, role: Role, name: String, phone: String?, vendorId: UUID? = nil, vehicle: Vehicle? = nil,
        suspended: Bool = false, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.role = role
        self.name = name
        self.phone = phone
        self.vendorId = vendorId
        self.vehicle = vehicle
        self.suspended = suspended
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The subject of this person's access tokens: a staff member acts as their store, everyone else as themselves.
    public var tokenSubject: UUID { role == .vendor ? (vendorId ?? id) : id }
}

/// A store orders are picked up from, as the courier company registers it.
public struct Vendor: Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var address: String
    public var location: GeoPoint
    public var phone: String?
    public var createdAt: Date

    public init(id: UUID, name: String, address: String, location: GeoPoint, phone: String?, createdAt: Date) {
        self.id = id
        self.name = name
        self.address = address
        self.location = location
        self.phone = phone
        self.createdAt = createdAt
    }
}
