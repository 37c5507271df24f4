import LogisticsCore

/// Shapes of the offer, task and proof-of-delivery endpoints.
enum OpenAPIDeliverySchemas {
    static var all: [String: Any] {
        let object = OpenAPISchemas.object
        let uuid = OpenAPISchemas.uuid
        let time = OpenAPISchemas.time
        let enumeration = OpenAPISchemas.enumeration
        let taskStatuses = TaskStatus.allCases.map(\.rawValue)
        return [
            // Either riderIds or strategy, never both; count goes with strategy and is 3 when left out.
            "MakeOffersRequest": object(
                [
                    "riderIds": ["type": "array", "items": uuid, "minItems": 1, "maxItems": 50],
                    "strategy": enumeration(["nearest"]),
                    "count": ["type": "integer", "minimum": 1, "maximum": 20],
                ], []
            ).merging(["oneOf": [["required": ["riderIds"]], ["required": ["strategy"]]]]) { first, _ in first },
            "Offer": object(
                [
                    "offerId": uuid, "riderId": uuid, "orderId": uuid,
                    "status": enumeration(["OPEN", "ACCEPTED", "DECLINED", "EXPIRED", "SUPERSEDED", "CANCELLED"]),
                    "expiresAt": time, "secondsLeft": ["type": "integer", "minimum": 0],
                    "pickup": OpenAPI.ref("VendorStop"),
                    "dropoff": object(
                        ["address": ["type": "string"], "location": OpenAPI.ref("GeoPoint")], ["address", "location"]),
                    "distances": [
                        "type": "object",
                        "description": "Road distances in metres (the rider's open offers; absent without a map)",
                        "properties": ["toStoreM": ["type": "number"], "storeToCustomerM": ["type": "number"]],
                    ],
                ], ["offerId", "riderId", "orderId", "status", "expiresAt"]),
            "OfferList": object(["offers": ["type": "array", "items": OpenAPI.ref("Offer")]], ["offers"]),
            "Task": object(
                [
                    "taskId": uuid, "orderId": uuid, "externalRef": ["type": "string"],
                    "status": enumeration(taskStatuses),
                    "allowedNext": ["type": "array", "items": enumeration(taskStatuses)],
                    "podType": enumeration(ProofOfDeliveryType.allCases.map(\.rawValue)),
                    "proofOfDelivery": object(
                        [
                            "accepted": ["type": "boolean"], "overridden": ["type": "boolean"],
                            "otpAttemptsRemaining": ["type": "integer"], "otpLocked": ["type": "boolean"],
                        ], ["accepted", "overridden", "otpAttemptsRemaining", "otpLocked"]),
                    "vendor": OpenAPI.ref("VendorStop"),
                    "customer": object(
                        [
                            "name": ["type": "string"], "address": ["type": "string"],
                            "location": OpenAPI.ref("GeoPoint"),
                            "phoneMasked": ["type": "string"],
                            "phone": [
                                "type": "string",
                                "description":
                                    "The operator's call-masking number to reach the customer through, when configured",
                            ],
                        ], ["name", "address", "location", "phoneMasked"]
                    ).merging([
                        "type": ["object", "null"],
                        "description":
                            "null once the task is DELIVERED, FAILED or CANCELLED: the rider keeps no contact",
                    ]) { $1 },
                    "nextStop": object(
                        [
                            "kind": enumeration(["STORE", "CUSTOMER"]), "name": ["type": "string"],
                            "address": ["type": "string"], "location": OpenAPI.ref("GeoPoint"),
                        ], ["kind", "address", "location"]),
                    "notes": ["type": "string", "description": "The order's notes; absent once the task has ended"],
                    "acceptedAt": time, "updatedAt": time,
                    "geofenceRadiusM": [
                        "type": "number",
                        "description":
                            "The server's geofence radius: apps ask the rider before Arrived at Destination farther away",
                    ],
                    "route": [
                        "$ref": "#/components/schemas/Route",
                        "description": "Active task only: the route to nextStop from the last fix, when one is known",
                    ],
                ],
                [
                    "taskId", "orderId", "status", "allowedNext", "podType", "vendor", "customer", "geofenceRadiusM",
                    "acceptedAt",
                ]),
            "StatusChange": object(
                [
                    "status": enumeration(taskStatuses.filter { $0 != "ACCEPTED" && $0 != "CANCELLED" }),
                    "location": OpenAPI.ref("GeoPoint"),
                    "occurredAt": [
                        "type": "string", "format": "date-time",
                        "description": "The device's tap time; at most 2 minutes ahead, never before acceptance.",
                    ],
                    "eventId": uuid, "farFromDestinationConfirmed": ["type": "boolean"],
                    "reason": enumeration(DeliveryIssueType.allCases.map(\.rawValue)),
                ], ["status", "location", "occurredAt", "eventId"]),
            "PhotoProofForm": object(
                [
                    "photo": ["type": "string", "contentMediaType": "image/jpeg"], "capturedAt": time,
                    "lat": ["type": "number", "minimum": -90, "maximum": 90],
                    "lon": ["type": "number", "minimum": -180, "maximum": 180],
                    "accuracyM": ["type": "number", "minimum": 0],
                ], ["photo", "capturedAt", "lat", "lon", "accuracyM"]),
            "PhotoProof": object(
                [
                    "podId": uuid, "type": enumeration(["PHOTO"]), "imageUrl": ["type": "string"],
                    "sha256": ["type": "string", "pattern": "^[0-9a-f]{64}$"], "byteSize": ["type": "integer"],
                    "contentType": ["type": "string"], "capturedAt": time, "location": OpenAPI.ref("GeoPoint"),
                ], ["podId", "type", "imageUrl", "sha256", "capturedAt", "location"]),
            "OTPProof": object(
                [
                    "type": enumeration(["OTP"]), "value": ["type": "string", "pattern": "^[0-9]{4}$"],
                    "capturedAt": time,
                    // GPS and its accuracy are mandatory on every proof.
                    "location": ["allOf": [OpenAPI.ref("GeoPoint")], "required": ["accuracyM"]],
                ], ["type", "value", "capturedAt", "location"]),
            "OTPVerified": object(["verified": ["type": "boolean"]], ["verified"]),
            "ReportIssue": object(
                [
                    "type": enumeration(DeliveryIssueType.allCases.map(\.rawValue)), "note": OpenAPISchemas.text(1000),
                    "location": OpenAPI.ref("GeoPoint"), "occurredAt": time,
                ], ["type"]),
            "Issue": object(
                [
                    "issueId": uuid, "taskId": uuid, "type": enumeration(DeliveryIssueType.allCases.map(\.rawValue)),
                    "note": ["type": "string"], "location": OpenAPI.ref("GeoPoint"), "occurredAt": time,
                ], ["issueId", "taskId", "type", "occurredAt"]),
            "LocationBatch": object(
                [
                    "fixes": [
                        "type": "array", "minItems": 1, "maxItems": 500,
                        "items": object(
                            [
                                "lat": ["type": "number", "minimum": -90, "maximum": 90],
                                "lon": ["type": "number", "minimum": -180, "maximum": 180],
                                "accuracyM": ["type": "number", "minimum": 0],
                                "speedMps": ["type": "number", "minimum": 0, "maximum": 100],
                                "headingDeg": ["type": "number", "minimum": 0, "exclusiveMaximum": 360],
                                "recordedAt": [
                                    "type": "string", "format": "date-time",
                                    "description": "At most 2 minutes ahead of the server's clock",
                                ],
                            ], ["lat", "lon", "recordedAt"]),
                    ]
                ], ["fixes"]),
            "LocationReceipt": object(
                [
                    "accepted": ["type": "integer"], "rejected": ["type": "integer"],
                    "duplicates": ["type": "integer"],
                    "rejections": [
                        "type": "array",
                        "items": object(
                            ["index": ["type": "integer"], "reason": ["type": "string"]], ["index", "reason"]),
                    ],
                ], ["accepted", "rejected", "duplicates", "rejections"]),
            "DispatcherDecision": object(["reason": OpenAPISchemas.text(500)], []),
            // An override is audited: its reason is required, and blank is not a reason.
            "ProofOverride": object(["reason": OpenAPISchemas.filled(500)], ["reason"]),
            "NotificationList": object(
                [
                    "notifications": [
                        "type": "array",
                        "items": object(
                            [
                                "id": ["type": "integer"], "eventId": uuid, "orderId": uuid, "recipientId": uuid,
                                "recipientRole": enumeration(Role.allCases.map(\.rawValue)),
                                "title": ["type": "string"],
                                "body": ["type": "string"], "createdAt": time, "sentAt": time,
                            ], ["id", "eventId", "orderId", "createdAt"]),
                    ]
                ], ["notifications"]),
        ]
    }
}
