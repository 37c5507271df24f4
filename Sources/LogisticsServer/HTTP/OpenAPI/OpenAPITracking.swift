/// The live-tracking snapshot (CUS-028) for polling clients; the WebSocket stream sends the same document first.
enum OpenAPITracking {
    static var paths: [String: Any] {
        [
            "/api/v1/customer/orders/{orderId}/tracking": [
                "get": OpenAPI.operation(
                    "Where the rider is, with ETA: the live-tracking snapshot, while the order is IN_TRANSIT or "
                        + "ARRIVED_AT_DESTINATION. The same path upgrades to the WebSocket stream (token as "
                        + "`Sec-WebSocket-Protocol: bearer, <token>` or a first message `{\"type\":\"auth\",\"token\":…}`; "
                        + "a customer JWT or a tracking link); refusals close with 4000 + the HTTP status.",
                    tag: "Customer", roles: [.customer],
                    parameters: [OpenAPI.pathParameter("orderId")], response: "TrackingSnapshot",
                    errors: [.forbidden, .notFound, .trackingNotAvailable, .trackingEnded])
            ],
            "/track/{token}/snapshot": [
                "get": OpenAPI.operation(
                    "The same snapshot for the holder of a tracking link (the web tracking page refreshes its ETA and "
                        + "distance with it); no sign-in, the link is the credential",
                    tag: "Customer",
                    parameters: [
                        OpenAPI.pathParameter(
                            "token",
                            schema: [
                                "type": "string",
                                "pattern": "^trk2?_[0-9a-f]{32}\\.[A-Za-z0-9_-]{43}$",
                            ])
                    ],
                    response: "TrackingSnapshot",
                    errors: [.forbidden, .notFound, .trackingNotAvailable, .trackingEnded], public: true)
            ],
            "/api/v1/orders/{orderId}/tracking-links": [
                "post": OpenAPI.operation(
                    "An order-scoped, read-only tracking token (for a link sent to the recipient); the tracking "
                        + "stream accepts it in place of a customer JWT. It works until revoked, and shows the "
                        + "order's end for LOGISTICS_TRACKING_LINK_HOURS_AFTER_END (24 h) after it; then 410",
                    tag: "Orders", roles: [.dispatcher, .admin, .vendor, .customer],
                    parameters: [OpenAPI.pathParameter("orderId")], success: 201, response: "TrackingLink",
                    errors: [.forbidden, .notFound, .trackingEnded], idempotent: true)
            ],
            "/api/v1/orders/{orderId}/tracking-links/{linkId}": [
                "delete": OpenAPI.operation(
                    "Revoke a tracking link at once: its page and snapshot answer 403 and tracking sockets open on "
                        + "it close with 4403 within a second",
                    tag: "Orders", roles: [.dispatcher, .admin, .vendor, .customer],
                    parameters: [OpenAPI.pathParameter("orderId"), OpenAPI.pathParameter("linkId")], success: 204,
                    response: nil, errors: [.forbidden, .notFound, .validationFailed])
            ],
        ]
    }

    static var schemas: [String: Any] {
        let position = OpenAPISchemas.object(
            [
                "lat": ["type": "number"], "lon": ["type": "number"], "accuracyM": ["type": "number"],
                "recordedAt": ["type": "string", "format": "date-time"],
            ], ["lat", "lon", "recordedAt"])
        return [
            "TrackingLink": OpenAPISchemas.object(
                [
                    "linkId": ["type": "string", "format": "uuid", "description": "To revoke the link with"],
                    "orderId": ["type": "string", "format": "uuid"], "token": ["type": "string"],
                    "url": ["type": "string", "description": "The web tracking page"],
                    "validUntil": ["type": "string"],
                ], ["linkId", "orderId", "token", "url"]),
            "TrackingSnapshot": OpenAPISchemas.object(
                [
                    "type": OpenAPISchemas.enumeration(["snapshot"]),
                    "seq": [
                        "type": "integer", "description": "The order's stream position; the next message is seq + 1",
                    ],
                    "stream": [
                        "type": "string",
                        "description":
                            "Names this run of seq values; send it back as {\"resumeFrom\": n, \"stream\": s} and "
                            + "a seq from another stream (another instance, a channel opened again) gets a resync",
                    ],
                    "status": OpenAPISchemas.enumeration(["IN_TRANSIT", "ARRIVED_AT_DESTINATION"]),
                    "vendor": OpenAPI.ref("VendorStop"),
                    "destination": OpenAPISchemas.object(
                        ["address": ["type": "string"], "location": OpenAPI.ref("GeoPoint")], ["address", "location"]),
                    "rider": position.merging(["description": "Last position a customer may see; absent before any fix"]
                    ) {
                        first, _ in first
                    },
                    "stale": [
                        "type": "boolean", "description": "No fix for 15 s: show the last position with its time",
                    ],
                    "etaSeconds": ["type": "integer"], "remainingDistanceM": ["type": "number"],
                ], ["type", "seq", "stream", "status", "vendor", "destination", "stale"]),
        ]
    }
}
