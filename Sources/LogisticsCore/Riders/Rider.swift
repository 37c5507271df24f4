import Foundation

public struct Rider: Sendable, Equatable {
    public var id: UUID
    public var name: String?
    public var availability: RiderAvailability
    public var suspended: Bool
    public var activeTaskId: UUID?
    public var createdAt: Date

    public init(
        id: UUID, name: String?, availability: RiderAvailability, suspended: Bool, activeTaskId: UUID?,
        createdAt: Date
    ) {
        self.id = id
        self.name = name
        self.availability = availability
        self.suspended = suspended
        self.activeTaskId = activeTaskId
        self.createdAt = createdAt
    }

    /// What customers are told of who is coming: the first word of the name.
    public var firstName: String? { name?.split(separator: " ").first.map(String.init) }
}

/// Who is acting: the token's subject and role.
public struct Actor: Sendable, Equatable {
    public var id: UUID
    public var role: Role
    public var name: String?
    /// The sign-in session of the token, when it came from signing in by phone.
    public var sessionId: UUID?

    public init(id: UUID, role: Role, name: String? = nil, sessionId: UUID? = nil) {
        self.id = id
        self.role = role
        self.name = name
        self.sessionId = sessionId
    }
}
