import Foundation
import LogisticsCore

/// A text message queued in the outbox for one phone, sent by the configured SMS provider.
public struct QueuedTextMessage: Sendable, Equatable {
    public var to: String
    public var body: String
    /// Erased from the outbox once sent or given up: a sign-in code must not outlive its use in the database.
    public var secret: Bool
    public var recipientId: UUID?

    public init(to: String, body: String, secret: Bool = false, recipientId: UUID? = nil) {
        self.to = to
        self.body = body
        self.secret = secret
        self.recipientId = recipientId
    }
}

/// What may change on a person; nil leaves a field as it is.
public struct PersonChanges: Sendable, Equatable {
    public var name: String?
    public var phone: String?
    public var vehicle: Vehicle?
    public var suspended: Bool?

    public init(name: String? = nil, phone: String? = nil, vehicle: Vehicle? = nil, suspended: Bool? = nil) {
        self.name = name
        self.phone = phone
        self.vehicle = vehicle
        self.suspended = suspended
    }
}

/// Which people a list shows.
public struct PeopleFilter: Sendable, Equatable {
    public var roles: [Role]
    public var vendorId: UUID?
    /// Matches name or phone, case-insensitive.
    public var query: String?

    public init(roles: [Role], vendorId: UUID? = nil, query: String? = nil) {
        self.roles = roles
        self.vendorId = vendorId
        self.query = query
    }
}

public struct PeoplePage: Sendable {
    public var people: [Person]
    public var nextCursor: String?
}

/// The courier company's people and stores.
public protocol PeopleRepository: Sendable {
    /// Adds the person (and, for a rider, their rider record) with their invitation in one transaction;
    /// 409 PHONE_IN_USE when someone has the phone.
    func addPerson(_ person: Person, createdBy: UUID, invitation: QueuedTextMessage?, now: Date) async throws
    func person(id: UUID) async throws -> Person?
    func person(phone: String) async throws -> Person?
    func people(_ filter: PeopleFilter, limit: Int, cursor: String?) async throws -> PeoplePage
    /// 404 when there is no such person of one of `roles`; 409 PHONE_IN_USE for a phone someone else has.
    func changePerson(id: UUID, roles: [Role], _ changes: PersonChanges, now: Date) async throws -> Person

    func addVendor(_ vendor: Vendor, createdBy: UUID) async throws
    func vendor(id: UUID) async throws -> Vendor?
    /// Changes what is given (nil leaves it); 404 when there is no such store.
    func changeVendor(id: UUID, name: String?, address: String?, location: GeoPoint?, phone: String?) async throws
        -> Vendor
    func vendors(query: String?, limit: Int, cursor: String?) async throws -> (vendors: [Vendor], nextCursor: String?)
}

/// How a request for a sign-in code ended.
public enum SignInCodeRequest: Sendable, Equatable {
    /// Recorded (and, when the phone is a person's, the code stored and its message queued).
    case recorded
    /// The phone had its sends for the window; the next is possible after this many seconds.
    case limited(retryAfter: Int)
}

/// How a try of a sign-in code ended.
public enum SignInCodeCheck: Sendable, Equatable {
    /// The code was right: it is spent, and this is who the phone belongs to.
    case accepted(Person)
    case wrong(attemptsRemaining: Int)
    /// Five wrong tries: only a new code helps.
    case locked
    /// No live code for the phone (never sent, used, expired, or not a person's phone).
    case none
}

/// How presenting a refresh token ended.
public enum RefreshOutcome: Sendable, Equatable {
    case rotated(SignInSession, Person)
    /// The token had been spent already: the whole session is now revoked.
    case reused
    /// Unknown, expired, or its session has ended.
    case refused(String)
    /// The person is suspended: the session is ended.
    case suspended
}

/// Sign-in by code, sessions and refresh tokens.
public protocol SignInRepository: Sendable {
    /// Counts the request against the phone's sends; when the phone is a person's, replaces their live code with
    /// `codeHash` and queues `message`, in one transaction. The work is the same for anyone's phone but the last
    /// two writes, so the answer's timing does not say whose phone it is.
    func requestSignInCode(
        phone: String, codeHash: String, message: QueuedTextMessage, expiresAt: Date, now: Date
    ) async throws -> SignInCodeRequest
    /// Spends one try of the phone's live code and asks `matches` about its hash; a right code is deleted.
    func checkSignInCode(phone: String, now: Date, matches: @escaping @Sendable (String) -> Bool) async throws
        -> SignInCodeCheck
    func startSession(_ session: SignInSession, refreshTokenHash: String, refreshExpiresAt: Date) async throws
    /// Spends the refresh token and stores its successor; a spent token revokes its session.
    func rotateRefreshToken(hash: String, successorHash: String, successorExpiresAt: Date, now: Date) async throws
        -> RefreshOutcome
    func session(id: UUID) async throws -> SignInSession?
    func sessions(personId: UUID) async throws -> [SignInSession]
    /// False when there was no live session of that id.
    func revokeSession(id: UUID, reason: String, now: Date) async throws -> Bool
    /// Ends every live session of the person (a suspension); returns their ids.
    func revokeSessions(personId: UUID, reason: String, now: Date) async throws -> [UUID]
    /// Which of these sessions no longer admit their tokens (revoked, expired or unknown).
    func endedSessions(among ids: Set<UUID>, now: Date) async throws -> Set<UUID>
    /// Forgets expired codes, old code requests and refresh tokens of ended sessions.
    func pruneSignIn(now: Date) async throws -> Int
}
