import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `/api/v1/webhooks`: admins register other systems' endpoints, and look after what could not be delivered.
struct WebhookRoutes {
    let services: LogisticsServices

    func register(in routes: inout RouteTable) {
        routes.post("/webhooks", create)
        routes.get("/webhooks", list)
        routes.delete("/webhooks/{webhookId}", remove)
        routes.get("/webhooks/dead-letters", deadLetters)
        routes.post("/webhooks/dead-letters/{deliveryId}/redeliver", redeliver)
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
            with: body.url, allowPrivate: services.configuration.environment == .development)
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
        if !(16...256).contains(body.secret.utf8.count) {
            problems.append(FieldError(field: "secret", message: "must be 16–256 bytes"))
        }
        guard problems.isEmpty else { throw LogisticsError.validation(problems) }
        let webhook = WebhookSubscription(
            id: UUID(), url: body.url, events: Array(Set(body.events)).sorted(), secret: body.secret,
            createdAt: services.clock.now())
        try await services.notifications.createWebhook(webhook, createdBy: actor.id)
        return try .json(
            WebhookRepresentation(webhook), status: .created, location: "/api/v1/webhooks/\(webhook.id.lowercased)")
    }

    @Sendable func list(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        return try .json(["webhooks": try await services.notifications.webhooks().map(WebhookRepresentation.init)])
    }

    @Sendable func remove(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        let id = try context.uuidParameter("webhookId")
        guard try await services.notifications.deleteWebhook(id: id, now: services.clock.now()) else {
            throw LogisticsError.notFound("webhook")
        }
        return APIResponse(status: .noContent, body: Data(), contentType: "application/json")
    }

    @Sendable func deadLetters(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        let letters = try await services.notifications.deadLetters(limit: 200).map {
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
        guard try await services.notifications.redeliver(id: id, now: services.clock.now()) else {
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

    /// Loopback, link-local, private and unique-local addresses, and local names. (Names resolving to such
    /// addresses are not caught here; a production deployment should also egress through a proxy.)
    static func isPrivate(_ host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name.hasSuffix(".localhost") || name.hasSuffix(".local")
            || name.hasSuffix(".internal")
        {
            return true
        }
        let octets = name.split(separator: ".").compactMap { UInt8($0) }
        if octets.count == 4 && name.split(separator: ".").count == 4 {
            switch (octets[0], octets[1]) {
            case (0, _), (10, _), (127, _), (169, 254), (192, 168): return true
            case (172, 16...31), (100, 64...127): return true
            default: return false
            }
        }
        if name.contains(":") {
            return name == "::1" || name == "::" || name.hasPrefix("fc") || name.hasPrefix("fd")
                || name.hasPrefix("fe80")
                || name.hasPrefix("::ffff:")
        }
        return false
    }
}
