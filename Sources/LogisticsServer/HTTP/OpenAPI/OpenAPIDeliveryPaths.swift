import LogisticsCore

/// Offers, tasks, proof of delivery and dispatcher decisions.
enum OpenAPIDeliveryPaths {
    static var all: [String: Any] {
        let orderId = OpenAPI.pathParameter("orderId")
        let offerId = OpenAPI.pathParameter("offerId")
        let taskId = OpenAPI.pathParameter("taskId")
        let podId = OpenAPI.pathParameter("podId")
        return [
            "/api/v1/orders/{orderId}/offers": [
                "post": OpenAPI.operation(
                    "Offer the order to riders (broadcast) or to the nearest free ones", tag: "Dispatch",
                    roles: [.vendor, .dispatcher, .admin], parameters: [orderId], body: "MakeOffersRequest",
                    success: 201, response: "OfferList",
                    errors: [
                        .forbidden, .notFound, .orderCancelled, .orderAlreadyAssigned, .invalidStatusTransition,
                        .noRiderAvailable, .conflict,
                    ], idempotent: true)
            ],
            "/api/v1/orders/{orderId}/pod-override": [
                "post": OpenAPI.operation(
                    "Let the rider complete without the usual proof (audited)", tag: "Dispatch",
                    roles: [.dispatcher, .admin], parameters: [orderId], body: "ProofOverride", response: "Task",
                    errors: [.forbidden, .notFound, .orderCancelled, .invalidStatusTransition], idempotent: true)
            ],
            "/api/v1/orders/{orderId}/failure-approval": [
                "post": OpenAPI.operation(
                    "Allow FAILED without waiting for the issue timer (audited)", tag: "Dispatch",
                    roles: [.dispatcher, .admin], parameters: [orderId], body: "DispatcherDecision", response: "Task",
                    errors: [.forbidden, .notFound, .orderCancelled, .invalidStatusTransition], idempotent: true)
            ],
            "/api/v1/orders/{orderId}/notifications": [
                "get": OpenAPI.operation(
                    "Push notifications queued for the order (customer, rider, dispatchers)", tag: "Dispatch",
                    roles: [.dispatcher, .admin], parameters: [orderId], response: "NotificationList",
                    errors: [.forbidden, .notFound, .validationFailed])
            ],
            "/api/v1/rider/offers": [
                "get": OpenAPI.operation(
                    "The rider's open offers with expiresAt and secondsLeft", tag: "Rider", roles: [.rider],
                    response: "OfferList", errors: [.forbidden])
            ],
            "/api/v1/rider/offers/{offerId}/accept": [
                "post": OpenAPI.operation(
                    "Accept an offer: exactly one rider wins an order; the winner's retry gets the same 200",
                    tag: "Rider", roles: [.rider], parameters: [offerId], response: "Task",
                    errors: [
                        .forbidden, .notFound, .offerExpired, .orderAlreadyAssigned, .orderCancelled, .riderNotOnline,
                        .riderHasActiveTask, .invalidStatusTransition, .validationFailed,
                    ], idempotent: true)
            ],
            "/api/v1/rider/offers/{offerId}/decline": [
                "post": OpenAPI.operation(
                    "Decline an offer", tag: "Rider", roles: [.rider], parameters: [offerId], response: "Offer",
                    errors: [.forbidden, .notFound, .offerExpired, .validationFailed], idempotent: true)
            ],
            "/api/v1/rider/tasks/active": [
                "get": OpenAPI.operation(
                    "The rider's task in progress, with stops, masked phone, podType and allowedNext", tag: "Rider",
                    roles: [.rider], response: "Task", errors: [.forbidden, .noActiveTask])
            ],
            "/api/v1/rider/tasks/{taskId}/status": [
                "patch": OpenAPI.operation(
                    "Move the task to its next status; occurredAt is kept as sent, eventId makes retries idempotent",
                    tag: "Rider", roles: [.rider], parameters: [taskId], body: "StatusChange", response: "Task",
                    errors: [
                        .forbidden, .notFound, .invalidStatusTransition, .orderCancelled, .podRequired,
                        .geofenceConfirmationRequired, .idempotencyKeyReused,
                    ])
            ],
            "/api/v1/rider/tasks/{taskId}/pod": [
                "post": [
                    "summary":
                        "Proof of delivery at the destination: a photo (multipart/form-data: photo, capturedAt, lat, lon, accuracyM) → 201, or the customer's code (JSON) → 200",
                    "tags": ["Rider"],
                    "description":
                        "Roles: rider. Photos up to 10 MiB, sniffed as JPEG, PNG, HEIC or WebP; at most 5 per task, the sixth is 409 CONFLICT with maximumPhotos.",
                    "parameters": [taskId, ["$ref": "#/components/parameters/IdempotencyKey"]],
                    "requestBody": [
                        "required": true,
                        "content": [
                            "multipart/form-data": ["schema": OpenAPI.ref("PhotoProofForm")],
                            "application/json": ["schema": OpenAPI.ref("OTPProof")],
                        ],
                    ],
                    "responses": OpenAPI.responses(
                        success: [
                            "201": ["description": "Photo stored", "content": OpenAPI.json(OpenAPI.ref("PhotoProof"))],
                            "200": [
                                "description": "Code verified", "content": OpenAPI.json(OpenAPI.ref("OTPVerified")),
                            ],
                        ],
                        errors: [
                            .unauthenticated, .forbidden, .notFound, .invalidStatusTransition, .orderCancelled,
                            .invalidOTP, .otpLocked, .validationFailed, .payloadTooLarge, .unsupportedMediaType,
                            .conflict, .idempotencyKeyReused, .idempotencyRequestInProgress, .serviceUnavailable,
                        ]),
                ]
            ],
            "/api/v1/rider/tasks/{taskId}/issues": [
                "post": OpenAPI.operation(
                    "Report a delivery problem; the customer and dispatchers are notified", tag: "Rider",
                    roles: [.rider], parameters: [taskId], body: "ReportIssue", success: 201, response: "Issue",
                    errors: [.forbidden, .notFound, .orderCancelled, .invalidStatusTransition], idempotent: true)
            ],
            "/api/v1/rider/locations": [
                "post": OpenAPI.operation(
                    "A batch of 1 to 500 GPS fixes, acknowledged once stored; any out-of-range fix refuses the whole "
                        + "batch (400, nothing stored); exact duplicates and fixes older than 24 h are counted as "
                        + "rejected. The same over WS /api/v1/rider/stream as {\"type\":\"locations\",\"ref\",\"fixes\"}.",
                    tag: "Rider", roles: [.rider], body: "LocationBatch", success: 202, response: "LocationReceipt",
                    errors: [.forbidden, .validationFailed], idempotent: true)
            ],
            "/api/v1/pods/{podId}/image": [
                "get": [
                    "summary": "A proof-of-delivery photo", "tags": ["Proof of delivery"],
                    "description":
                        "Roles: the assigned rider, dispatchers, admins and the order's customer; others get 404.",
                    "parameters": [podId],
                    "responses": OpenAPI.responses(
                        success: [
                            "200": [
                                "description": "The image bytes",
                                "content": [
                                    "image/jpeg": [:], "image/png": [:], "image/heic": [:], "image/webp": [:],
                                ],
                            ]
                        ], errors: [.unauthenticated, .notFound, .validationFailed, .serviceUnavailable]),
                ]
            ],
        ]
    }
}
