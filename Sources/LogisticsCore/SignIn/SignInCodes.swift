import Crypto
import Foundation

/// The six-digit codes people sign in with. A code is drawn from the system's CSPRNG, sent once, and only a keyed
/// hash of it is stored (HMAC with a key of its own, bound to the phone), so the database alone neither shows a
/// live code nor lets one be guessed offline; an attempt is compared with the hash in constant time.
public struct SignInCodes: Sendable {
    public static let length = 6
    /// How long a code may be used.
    public static let lifetime: TimeInterval = 300
    /// Wrong tries a code survives; the one that reaches this count locks it until a new code is sent.
    public static let attempts = 5
    /// Codes sent to one phone within `sendWindow`.
    public static let sendsPerPhone = 3
    public static let sendWindow: TimeInterval = 600

    private let key: SymmetricKey

    public init(serverSecret: [UInt8]) {
        key = ServerKeys.key(for: .signInCodes, from: serverSecret)
    }

    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }

    /// Uniform over 000000…999999 (the generator's own rejection sampling, no modulo bias).
    public static func make<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let value = UInt32.random(in: 0..<1_000_000, using: &generator)
        let digits = String(value)
        return String(repeating: "0", count: length - digits.count) + digits
    }

    public func hash(phone: String, code: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Array("\(phone):\(code)".utf8), using: key)).base64EncodedString()
    }

    public func matches(phone: String, attempt: String, storedHash: String) -> Bool {
        guard let stored = Data(base64Encoded: storedHash) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            stored, authenticating: Array("\(phone):\(attempt)".utf8), using: key)
    }

    /// Six ASCII digits, nothing else.
    public static func isWellFormed(_ code: String) -> Bool {
        code.utf8.count == length && code.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}

/// Refresh tokens: 32 random bytes, base64url, shown to the client once; the store keeps their SHA-256. A hash
/// with no key is enough here: the token has 256 bits of entropy, so there is nothing to guess offline.
public enum RefreshTokens {
    static let prefix = "rft_"

    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix
            + Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    public static func hash(_ token: String) -> String {
        Data(SHA256.hash(data: Array(token.utf8))).base64EncodedString()
    }

    /// A token this server could have made: anything else is refused without a database read.
    public static func isWellFormed(_ token: String) -> Bool {
        token.hasPrefix(prefix) && token.utf8.count == prefix.utf8.count + 43
            && token.utf8.dropFirst(prefix.utf8.count).allSatisfy {
                ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z"))
                    || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: "_")
            }
    }
}

/// One sign-in on one device: every access and refresh token it hands out, until it is logged out, revoked, or
/// its last refresh token runs out.
public struct SignInSession: Sendable, Equatable {
    public var id: UUID
    public var personId: UUID
    public var role: Role
    public var subject: UUID
    public var createdAt: Date
    public var lastUsedAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?
    public var revokedReason: String?
    public var userAgent: String?

    public init(
        id: UUID, personId: UUID, role: Role, subject: UUID, createdAt: Date, lastUsedAt: Date, expiresAt: Date,
        revokedAt: Date? = nil, revokedReason: String? = nil, userAgent: String? = nil
    ) {
        self.id = id
        self.personId = personId
        self.role = role
        self.subject = subject
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.revokedReason = revokedReason
        self.userAgent = userAgent
    }

    public func isLive(at now: Date) -> Bool { revokedAt == nil && expiresAt > now }

    /// Why this sign-in no longer works, as the person is told it when their page tries to renew it: a page that
    /// signs someone out must say why (suspended, ended by an admin, used from two places), not only that it ended.
    public var whyEnded: String {
        switch revokedReason {
        case nil: "This sign-in has expired; sign in again"
        case "suspended": "This account was suspended, which ended this sign-in; ask your company to reinstate it"
        case "revoked by an admin": "An admin ended this sign-in; sign in again"
        case "signed out": "This sign-in was signed out; sign in again"
        case "a refresh token was used twice":
            "This sign-in was used from two places at once, so it was ended everywhere; sign in again"
        case let reason?: "This sign-in was ended (\(reason)); sign in again"
        }
    }
}
