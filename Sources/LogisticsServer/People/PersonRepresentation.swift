import Foundation
import LogisticsCore
import LogisticsStore

/// A person as the admin's lists and the creation answers show them.
struct PersonRepresentation: Encodable {
    var personId: String
    var role: String
    var name: String
    var phone: String?
    var vendorId: String?
    var vehicle: Vehicle?
    var suspended: Bool
    var createdAt: Date
    /// Riders only, under the name the rider API has always used.
    var riderId: String?
    var availability: RiderAvailability?

    init(_ person: Person, availability: RiderAvailability? = nil) {
        personId = person.id.lowercased
        role = person.role.rawValue
        name = person.name
        phone = person.phone
        vendorId = person.vendorId?.lowercased
        vehicle = person.vehicle
        suspended = person.suspended
        createdAt = person.createdAt
        riderId = person.role == .rider ? person.id.lowercased : nil
        self.availability = person.role == .rider ? (availability ?? .offline) : nil
    }
}

struct VendorRepresentation: Encodable {
    var vendorId: String
    var name: String
    var address: String
    var location: GeoPoint
    var phone: String?
    var createdAt: Date

    init(_ vendor: Vendor) {
        vendorId = vendor.id.lowercased
        name = vendor.name
        address = vendor.address
        location = vendor.location
        phone = vendor.phone
        createdAt = vendor.createdAt
    }
}

struct SessionRepresentation: Encodable {
    var sessionId: String
    var personId: String
    var role: String
    var createdAt: Date
    var lastUsedAt: Date
    var expiresAt: Date
    var revokedAt: Date?
    var revokedReason: String?
    var userAgent: String?
    var live: Bool

    init(_ session: SignInSession, now: Date) {
        sessionId = session.id.lowercased
        personId = session.personId.lowercased
        role = session.role.rawValue
        createdAt = session.createdAt
        lastUsedAt = session.lastUsedAt
        expiresAt = session.expiresAt
        revokedAt = session.revokedAt
        revokedReason = session.revokedReason
        userAgent = session.userAgent
        live = session.isLive(at: now)
    }
}
