import LogisticsCore

/// The JSON shapes of requests, responses and problems.
enum OpenAPISchemas {
    static func object(_ properties: [String: Any], _ required: [String]) -> [String: Any] {
        ["type": "object", "properties": properties, "required": required]
    }

    static var uuid: [String: Any] { ["type": "string", "format": "uuid"] }
    static var time: [String: Any] { ["type": "string", "format": "date-time"] }
    static func text(_ maxLength: Int) -> [String: Any] { ["type": "string", "maxLength": maxLength] }
    /// A text the server refuses when blank: at least one character that is not white space.
    static func filled(_ maxLength: Int) -> [String: Any] {
        ["type": "string", "minLength": 1, "maxLength": maxLength, "pattern": "\\S"]
    }
    /// 6 to 20 digits, with spaces, `+`, `-`, `.` and parentheses between them; 40 characters at most.
    static var phone: [String: Any] {
        ["type": "string", "maxLength": 40, "pattern": "^[ +().-]*([0-9][ +().-]*){6,20}$"]
    }
    static func enumeration(_ values: [String]) -> [String: Any] { ["type": "string", "enum": values] }

    static var all: [String: Any] {
        [
            "GeoPoint": object(
                [
                    "lat": ["type": "number", "minimum": -90, "maximum": 90],
                    "lon": ["type": "number", "minimum": -180, "maximum": 180],
                    "accuracyM": ["type": "number", "minimum": 0],
                ], ["lat", "lon"]),
            "VendorStop": object(
                ["name": filled(200), "address": filled(500), "location": OpenAPI.ref("GeoPoint")],
                ["name", "address", "location"]),
            "Customer": object(
                [
                    "id": uuid, "name": filled(200), "phone": phone, "address": filled(500),
                    "location": OpenAPI.ref("GeoPoint"),
                ], ["id", "name", "phone", "address", "location"]),
            "CreateOrderRequest": object(
                [
                    "externalRef": text(100), "vendor": OpenAPI.ref("VendorStop"), "customer": OpenAPI.ref("Customer"),
                    "podType": [
                        "type": "string", "examples": ["PHOTO", "OTP"],
                        "description": "PHOTO or OTP; an unknown value is stored as PHOTO and logged as a warning.",
                    ],
                    "notes": text(2000),
                ], ["vendor", "customer"]),
            "Order": object(
                [
                    "orderId": uuid, "externalRef": ["type": "string"],
                    "status": enumeration(OrderStatus.allCases.map(\.rawValue)),
                    "vendor": OpenAPI.ref("VendorStop"), "customer": OpenAPI.ref("Customer"),
                    "podType": enumeration(ProofOfDeliveryType.allCases.map(\.rawValue)), "notes": ["type": "string"],
                    "assignedRiderId": uuid, "taskId": uuid, "cancelReason": ["type": "string"], "createdAt": time,
                    "updatedAt": time,
                ], ["orderId", "status", "vendor", "customer", "podType", "createdAt", "updatedAt"]),
            "OrderPage": object(
                ["orders": ["type": "array", "items": OpenAPI.ref("Order")], "nextCursor": ["type": "string"]],
                ["orders"]),
            "OrderEvent": object(
                [
                    "eventId": uuid, "orderId": uuid, "taskId": uuid, "seq": ["type": "integer", "minimum": 1],
                    "type": ["type": "string"], "status": ["type": "string"], "occurredAt": time, "receivedAt": time,
                    "location": OpenAPI.ref("GeoPoint"),
                    "actor": object(
                        ["id": uuid, "role": enumeration(Role.allCases.map(\.rawValue))], ["id", "role"]),
                    "geofenceDistanceM": ["type": "number"], "geofenceOverride": ["type": "boolean"],
                    "details": ["type": "object", "additionalProperties": ["type": "string"]],
                ], ["eventId", "orderId", "seq", "type", "occurredAt", "receivedAt", "actor"]),
            "EventLog": object(
                ["events": ["type": "array", "items": OpenAPI.ref("OrderEvent")]], ["events"]),
            "CancelOrderRequest": object(["reason": text(500)], []),
            "Rider": object(
                [
                    "riderId": uuid, "name": ["type": "string"],
                    "availability": enumeration(RiderAvailability.allCases.map(\.rawValue)),
                    "suspended": ["type": "boolean"], "activeTaskId": uuid,
                ], ["riderId", "availability", "suspended"]),
            "Fleet": object(
                [
                    "riders": [
                        "type": "array",
                        "items": object(
                            [
                                "riderId": uuid, "name": ["type": "string"],
                                "availability": enumeration(RiderAvailability.allCases.map(\.rawValue)),
                                "suspended": ["type": "boolean"], "activeTaskId": uuid,
                                "lastLocation": object(
                                    ["lat": ["type": "number"], "lon": ["type": "number"], "recordedAt": time],
                                    ["lat", "lon", "recordedAt"]),
                            ], ["riderId", "availability", "suspended"]),
                    ]
                ], ["riders"]),
            "AvailabilityRequest": object(["status": enumeration(["ONLINE", "OFFLINE"])], ["status"]),
            "CustomerOrder": object(
                [
                    "orderId": uuid, "status": enumeration(OrderStatus.allCases.map(\.rawValue)),
                    "vendor": OpenAPI.ref("VendorStop"),
                    "destination": object(
                        ["address": ["type": "string"], "location": OpenAPI.ref("GeoPoint")], ["address", "location"]),
                    "podType": enumeration(ProofOfDeliveryType.allCases.map(\.rawValue)),
                    "riderFirstName": ["type": "string"],
                    "deliveryOtp": ["type": "string", "pattern": "^[0-9]{4}$"],
                    "etaSeconds": ["type": "integer", "description": "While on its way, with a map loaded"],
                    "tracking": object(
                        [
                            "available": ["type": "boolean"], "lastKnown": OpenAPI.ref("GeoPoint"),
                            "lastKnownAt": time, "stale": ["type": "boolean"],
                        ], ["available", "stale"]),
                    "createdAt": time, "updatedAt": time,
                ], ["orderId", "status", "vendor", "destination", "podType", "tracking"]),
            "Health": object(["status": ["type": "string"], "database": ["type": "string"]], ["status"]),
            "FieldError": object(
                ["field": ["type": "string"], "message": ["type": "string"]], ["field", "message"]),
            "Problem": object(
                [
                    "type": ["type": "string", "format": "uri"], "title": ["type": "string"],
                    "status": ["type": "integer"], "code": enumeration(ErrorCode.allCases.map(\.rawValue)),
                    "detail": ["type": "string"], "instance": ["type": "string"], "requestId": ["type": "string"],
                    "errors": ["type": "array", "items": OpenAPI.ref("FieldError")],
                    "attemptsRemaining": ["type": "integer"], "distanceM": ["type": "number"],
                    "currentStatus": ["type": "string"], "allowedNext": ["type": "array", "items": ["type": "string"]],
                ], ["type", "title", "status", "code"]),
        ]
    }
}
