import Foundation
import Hummingbird
import Logging
import LogisticsCore
import NIOCore

/// Per-request state: who is calling and the request id that ties logs to responses.
public struct LogisticsRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var actor: Actor?
    public var requestId: String = ""
    /// Set by a WebSocket route that accepts the upgrade.
    public let socketUpgrade = SocketUpgradeChoice()
    /// The connection, for sockets that must be cut when a client stops reading.
    public let channel: (any Channel)?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The authenticated caller; routes behind `AuthenticationMiddleware` always have one.
    public func caller() throws -> Actor {
        guard let actor else { throw LogisticsError(.unauthenticated, "A bearer token is required") }
        return actor
    }

    /// The caller, if their role is one of `roles`; otherwise 403 FORBIDDEN.
    public func caller(_ roles: Role...) throws -> Actor { try caller(among: roles) }

    /// The caller, if their role is one of `roles` (any role when empty); otherwise 403 FORBIDDEN.
    public func caller(among roles: [Role]) throws -> Actor {
        let actor = try caller()
        if roles.isEmpty { return actor }
        guard roles.contains(actor.role) else {
            throw LogisticsError(.forbidden, "This action is not available to the \(actor.role.rawValue) role")
        }
        return actor
    }

    /// A UUID path parameter, or 400 VALIDATION_FAILED naming it.
    public func uuidParameter(_ name: String) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else {
            throw LogisticsError.validation(field: name, "must be a UUID")
        }
        return id
    }
}
