import LogisticsCore

/// Device registration for pushes, and webhook administration.
enum OpenAPINotifications {
    static var paths: [String: Any] {
        let deviceId = OpenAPI.pathParameter(
            "deviceId", schema: ["type": "string", "pattern": "^[A-Za-z0-9._:-]{1,128}$"])
        return [
            "/api/v1/me/devices/{deviceId}": [
                "put": OpenAPI.operation(
                    "Register (or update) this app install for push notifications; a token registered by another "
                        + "account moves here", tag: "Notifications", roles: [.rider, .customer],
                    parameters: [deviceId], body: "DeviceRequest", response: "Device",
                    errors: [.forbidden, .validationFailed]),
                "delete": OpenAPI.operation(
                    "Stop pushes to this app install", tag: "Notifications", roles: [.rider, .customer],
                    parameters: [deviceId], success: 204, response: nil,
                    errors: [.forbidden, .notFound, .validationFailed]),
            ],
            "/api/v1/webhooks": [
                "post": OpenAPI.operation(
                    "Register a webhook: matching events are POSTed, signed with the secret (see the README)",
                    tag: "Notifications", roles: [.admin], body: "WebhookRequest", success: 201,
                    response: "Webhook", errors: [.forbidden], idempotent: true),
                "get": OpenAPI.operation(
                    "Registered webhooks (secrets are not shown)", tag: "Notifications", roles: [.admin],
                    response: "WebhookList", errors: [.forbidden]),
            ],
            "/api/v1/webhooks/{webhookId}": [
                "delete": OpenAPI.operation(
                    "Delete a webhook; what is still queued for it is dropped", tag: "Notifications",
                    roles: [.admin], parameters: [OpenAPI.pathParameter("webhookId")], success: 204, response: nil,
                    errors: [.forbidden, .notFound, .validationFailed])
            ],
            "/api/v1/webhooks/dead-letters": [
                "get": OpenAPI.operation(
                    "Webhook calls (and pushes) that ran out of retries, newest first", tag: "Notifications",
                    roles: [.admin], response: "DeadLetterList", errors: [.forbidden])
            ],
            "/api/v1/webhooks/dead-letters/{deliveryId}/redeliver": [
                "post": OpenAPI.operation(
                    "Queue a dead letter again, with a fresh retry budget", tag: "Notifications", roles: [.admin],
                    parameters: [
                        OpenAPI.pathParameter(
                            "deliveryId", schema: ["type": "integer", "minimum": 1, "maximum": Int.max])
                    ],
                    success: 202, response: nil, errors: [.forbidden, .notFound, .validationFailed],
                    idempotent: true)
            ],
        ]
    }

    /// An https URL whose host is a DNS name or IPv4 address, with a path and query of RFC 3986 characters.
    static let webhookURL =
        "^https://[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:[0-9]{1,4})?"
        + "(/[A-Za-z0-9._~!$&'()*+,;=:@/-]*)?(\\?[A-Za-z0-9._~!$&'()*+,;=:@/?-]*)?$"

    static var schemas: [String: Any] {
        let time: [String: Any] = ["type": "string", "format": "date-time"]
        let events: [String: Any] = [
            "type": "array", "minItems": 1, "items": ["type": "string", "enum": ["*"] + OrderEventType.all],
        ]
        return [
            "DeviceRequest": OpenAPISchemas.object(
                [
                    "platform": OpenAPISchemas.enumeration(DevicePlatform.allCases.map(\.rawValue)),
                    // Providers' tokens are printable ASCII; spaces and '/' would break the push URL.
                    "pushToken": ["type": "string", "minLength": 1, "maxLength": 4096, "pattern": "^[!-.0-~]+$"],
                    "locale": [
                        "type": "string", "maxLength": 35, "pattern": "^[A-Za-z0-9]{2,3}([-_][A-Za-z0-9]{1,8})*$",
                        "description": "Language of the texts: en (default), hi, mr",
                    ],
                ], ["platform", "pushToken"]),
            "Device": OpenAPISchemas.object(
                [
                    "deviceId": ["type": "string"],
                    "platform": OpenAPISchemas.enumeration(DevicePlatform.allCases.map(\.rawValue)),
                    "locale": ["type": "string"], "updatedAt": time,
                ], ["deviceId", "platform", "updatedAt"]),
            "WebhookRequest": OpenAPISchemas.object(
                [
                    "url": [
                        "type": "string", "maxLength": 2048, "pattern": webhookURL,
                        "description":
                            "An https URL of a public host (http and private addresses too in development only)",
                    ],
                    "events": events,
                    "secret": ["type": "string", "minLength": 16, "maxLength": 256],
                ], ["url", "events", "secret"]),
            "Webhook": OpenAPISchemas.object(
                [
                    "webhookId": ["type": "string", "format": "uuid"], "url": ["type": "string"], "events": events,
                    "createdAt": time,
                ], ["webhookId", "url", "events", "createdAt"]),
            "WebhookList": OpenAPISchemas.object(
                ["webhooks": ["type": "array", "items": OpenAPI.ref("Webhook")]], ["webhooks"]),
            "DeadLetterList": OpenAPISchemas.object(
                [
                    "deadLetters": [
                        "type": "array",
                        "items": OpenAPISchemas.object(
                            [
                                "deliveryId": ["type": "integer"],
                                "channel": OpenAPISchemas.enumeration(NotificationChannel.allCases.map(\.rawValue)),
                                "destinationId": ["type": "string"], "url": ["type": "string"],
                                "eventId": ["type": "string", "format": "uuid"],
                                "orderId": ["type": "string", "format": "uuid"], "attempts": ["type": "integer"],
                                "lastError": ["type": "string"], "createdAt": time, "deadAt": time,
                            ], ["deliveryId", "channel", "destinationId", "eventId", "orderId", "attempts"]),
                    ]
                ], ["deadLetters"]),
        ]
    }
}
