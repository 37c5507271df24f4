import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import NIOPosix

/// `/api/v1/webhooks`: admins register other systems' endpoints, and look after what could not be delivered.
struct WebhookRoutes {
    let notifications: any NotificationRepository
    let sealer: SecretSealer
    let environment: ServerConfiguration.Environment
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.post("/webhooks", roles: [.admin], create)
        routes.get("/webhooks", list)
        routes.delete("/webhooks/{webhookId}", remove)
        routes.get("/webhooks/dead-letters", deadLetters)
        routes.post("/webhooks/dead-letters/{deliveryId}/redeliver", roles: [.admin], redeliver)
    }

    struct CreateRequest: Decodable {
        var url: String
        var events: [String]
        var secret: String
    }

    struct WebhookRepresentation: Encodable {
        var webhookId: String
        var url: String
        var events: [String]
        var createdAt: Date

        init(_ webhook: WebhookSubscription) {
            webhookId = webhook.id.lowercased
            url = webhook.url
            events = webhook.events
            createdAt = webhook.createdAt
        }
    }

    struct DeadLetterRepresentation: Encodable {
        var deliveryId: Int
        var channel: NotificationChannel
        /// The webhook's id, or the device's for a push.
        var destinationId: String
        var url: String?
        var eventId: String
        var orderId: String
        var attempts: Int
        var lastError: String?
        var createdAt: Date
        var deadAt: Date?
    }

    @Sendable func create(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.admin)
        let body = try await RequestBody.decode(CreateRequest.self, from: request)
        var problems: [FieldError] = []
        if let problem = WebhookAddress.problem(
            with: body.url, allowPrivate: environment == .development)
        {
            problems.append(FieldError(field: "url", message: problem))
        }
        if body.events.isEmpty { problems.append(FieldError(field: "events", message: "must name at least one event")) }
        for (index, event) in body.events.enumerated() where event != "*" && !OrderEventType.all.contains(event) {
            problems.append(
                FieldError(
                    field: "events[\(index)]",
                    message: "must be * or one of " + OrderEventType.all.joined(separator: ", ")))
        }
        // Counted as JSON Schema counts (code points, the document's minLength and maxLength); at least 16 bytes.
        if !(16...256).contains(body.secret.unicodeScalars.count) {
            problems.append(FieldError(field: "secret", message: "must be 16–256 characters"))
        }
        guard problems.isEmpty else { throw LogisticsError.validation(problems) }
        let webhook = WebhookSubscription(
            id: UUID(), url: body.url, events: Array(Set(body.events)).sorted(),
            secret: sealer.seal(body.secret),
            createdAt: clock.now())
        try await notifications.createWebhook(webhook, createdBy: actor.id)
        return try .json(
            WebhookRepresentation(webhook), status: .created, location: "/api/v1/webhooks/\(webhook.id.lowercased)")
    }

    @Sendable func list(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        return try .json(["webhooks": try await notifications.webhooks().map(WebhookRepresentation.init)])
    }

    @Sendable func remove(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        let id = try context.uuidParameter("webhookId")
        guard try await notifications.deleteWebhook(id: id, now: clock.now()) else {
            throw LogisticsError.notFound("webhook")
        }
        return APIResponse(status: .noContent, body: Data(), contentType: "application/json")
    }

    @Sendable func deadLetters(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        let letters = try await notifications.deadLetters(limit: 200).map {
            DeadLetterRepresentation(
                deliveryId: $0.id, channel: $0.channel, destinationId: $0.destinationId,
                url: $0.channel == .webhook ? $0.target : nil, eventId: $0.eventId.lowercased,
                orderId: $0.orderId.lowercased, attempts: $0.attempts, lastError: $0.lastError,
                createdAt: $0.createdAt, deadAt: $0.deadAt)
        }
        return try .json(["deadLetters": letters])
    }

    @Sendable func redeliver(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        guard let text = context.parameters.get("deliveryId"), let id = Int(text), id > 0 else {
            throw LogisticsError.validation(field: "deliveryId", "must be a dead letter's deliveryId")
        }
        guard try await notifications.redeliver(id: id, now: clock.now()) else {
            throw LogisticsError.notFound("dead letter")
        }
        return try .json(["deliveryId": id], status: .accepted)
    }
}

/// Which URLs may receive webhooks. Outside development, only public HTTPS hosts: a webhook must not become a way
/// to make the server call into its own network.
enum WebhookAddress {
    static func problem(with text: String, allowPrivate: Bool) -> String? {
        guard text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty
        else { return "must be an absolute http(s) URL" }
        guard scheme == "https" || (scheme == "http" && allowPrivate) else {
            return allowPrivate ? "must be an http or https URL" : "must be an https URL"
        }
        if url.user != nil || url.password != nil { return "must not carry credentials; use the secret" }
        if !allowPrivate && isPrivate(host) {
            return "must be a public host (loopback and private addresses are refused)"
        }
        return nil
    }

    /// Loopback, link-local, private, shared, multicast and unique-local addresses, in every spelling the system
    /// resolver accepts (`127.1`, `2130706433`, `0x7f000001`, `[::ffff:127.0.0.1]`), and local names. A name that
    /// resolves to such an address is caught when the webhook is called (`WebhookConnection`).
    static func isPrivate(_ host: String) -> Bool {
        var name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") || name.hasSuffix(".local")
            || name.hasSuffix(".internal")
        {
            return true
        }
        if let bytes = numericAddress(name) { return isPrivate(address: bytes) }
        return false
    }

    /// The bytes of a numeric IPv4 or IPv6 host, read the way the system resolver reads them.
    static func numericAddress(_ host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_aton(host, &v4) != 0 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// 4 bytes (IPv4) or 16 (IPv6), in network order. IPv6 forms that carry or reach an IPv4 address (mapped,
    /// compatible `::a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo `2001::/32`)
    /// are refused whole, as are site-local `fec0::/10`, unique-local, link-local, multicast and documentation.
    static func isPrivate(address bytes: [UInt8]) -> Bool {
        if bytes.count == 4 {
            switch (bytes[0], bytes[1]) {
            case (0, _), (10, _), (127, _), (169, 254), (192, 168), (172, 16...31), (100, 64...127): return true
            case (224...255, _): return true
            default: return false
            }
        }
        guard bytes.count == 16 else { return true }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return isPrivate(address: Array(bytes[12..<16]))
        }
        let first16 = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let second16 = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        if bytes[0..<12].allSatisfy({ $0 == 0 }) { return true }  // ::, ::1 and IPv4-compatible ::a.b.c.d
        if first16 == 0x0064 && second16 == 0xff9b { return true }  // NAT64, well-known and local-use
        if first16 == 0x2002 { return true }  // 6to4
        if first16 == 0x2001 && (second16 == 0x0000 || second16 == 0x0db8) { return true }  // Teredo, documentation
        if first16 & 0xffc0 == 0xfec0 { return true }  // site-local
        return bytes[0] & 0xfe == 0xfc || (bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80) || bytes[0] == 0xff
    }

    struct UnresolvedHost: Error, CustomStringConvertible {
        var host: String
        var description: String { "cannot resolve \(host)" }
    }
}
