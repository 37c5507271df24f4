import LogisticsCore

/// Every REST operation the server serves.
enum OpenAPIPaths {
    static var all: [String: Any] {
        let orderId = OpenAPI.pathParameter("orderId")
        let riderId = OpenAPI.pathParameter("riderId")
        return [
            "/api/v1/orders": [
                "post": OpenAPI.operation(
                    "Create an order", tag: "Orders", roles: [.vendor, .dispatcher, .admin], body: "CreateOrderRequest",
                    success: 201, response: "Order", errors: [.forbidden], idempotent: true),
                "get": OpenAPI.operation(
                    "List orders, newest first", tag: "Orders", roles: [.dispatcher, .admin],
                    parameters: [
                        OpenAPI.queryParameter(
                            "status", ["type": "string", "enum": OrderStatus.allCases.map(\.rawValue)],
                            "Only this status"),
                        OpenAPI.queryParameter(
                            "limit", ["type": "integer", "minimum": 1, "maximum": 200], "Page size, default 50"),
                        OpenAPI.queryParameter(
                            "cursor",
                            [
                                "type": "string",
                                "pattern": "^-?[0-9]{1,18}_[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$",
                            ], "nextCursor of the previous page"),
                    ], response: "OrderPage", errors: [.forbidden, .validationFailed]),
            ],
            "/api/v1/orders/{orderId}": [
                "get": OpenAPI.operation(
                    "Get an order", tag: "Orders", roles: [.dispatcher, .admin, .vendor, .customer],
                    parameters: [orderId], response: "Order", errors: [.forbidden, .notFound, .validationFailed])
            ],
            "/api/v1/orders/{orderId}/events": [
                "get": OpenAPI.operation(
                    "The order's immutable event log", tag: "Orders", roles: [.dispatcher, .admin],
                    parameters: [orderId], response: "EventLog", errors: [.forbidden, .notFound, .validationFailed])
            ],
            "/api/v1/orders/{orderId}/ready": [
                "post": OpenAPI.operation(
                    "Mark the order ready for pickup", tag: "Orders", roles: [.vendor, .dispatcher, .admin],
                    parameters: [orderId], response: "Order",
                    errors: [.forbidden, .notFound, .orderCancelled, .invalidStatusTransition, .validationFailed],
                    idempotent: true)
            ],
            "/api/v1/orders/{orderId}/cancel": [
                "post": OpenAPI.operation(
                    "Cancel the order; open offers die and an assigned rider is told", tag: "Orders",
                    roles: [.vendor, .dispatcher, .admin, .customer], parameters: [orderId],
                    body: "CancelOrderRequest", response: "Order",
                    errors: [.forbidden, .notFound, .invalidStatusTransition], idempotent: true)
            ],
            "/api/v1/rider/me": [
                "get": OpenAPI.operation(
                    "The calling rider's profile", tag: "Rider", roles: [.rider], response: "Rider",
                    errors: [.forbidden])
            ],
            "/api/v1/rider/availability": [
                "put": OpenAPI.operation(
                    "Go ONLINE or OFFLINE", tag: "Rider", roles: [.rider], body: "AvailabilityRequest",
                    response: "Rider", errors: [.forbidden, .riderHasActiveTask])
            ],
            "/api/v1/riders": [
                "get": OpenAPI.operation(
                    "The fleet for the dispatcher's map: riders with the newest fixes first, with where they were last seen",
                    tag: "Dispatch", roles: [.dispatcher, .admin],
                    parameters: [
                        OpenAPI.queryParameter(
                            "availability", ["type": "string", "enum": RiderAvailability.allCases.map(\.rawValue)],
                            "Only riders of this availability"),
                        OpenAPI.queryParameter(
                            "limit", ["type": "integer", "minimum": 1, "maximum": 5000],
                            "At most this many, default 1000"),
                    ], response: "Fleet", errors: [.forbidden, .validationFailed])
            ],
            "/api/v1/riders/{riderId}/suspend": [
                "post": OpenAPI.operation(
                    "Suspend a rider: every rider call then answers 403", tag: "Administration", roles: [.admin],
                    parameters: [riderId], response: "Rider", errors: [.forbidden, .notFound, .validationFailed],
                    idempotent: true)
            ],
            "/api/v1/riders/{riderId}/reinstate": [
                "post": OpenAPI.operation(
                    "Lift a rider's suspension", tag: "Administration", roles: [.admin], parameters: [riderId],
                    response: "Rider", errors: [.forbidden, .notFound, .validationFailed], idempotent: true)
            ],
            "/api/v1/customer/orders/{orderId}": [
                "get": OpenAPI.operation(
                    "The customer's own order, with the delivery code for OTP orders", tag: "Customer",
                    roles: [.customer], parameters: [orderId], response: "CustomerOrder",
                    errors: [.forbidden, .notFound, .validationFailed])
            ],
            "/health/live": [
                "get": OpenAPI.operation(
                    "The process is up", tag: "Operations", response: "Health", errors: [], public: true)
            ],
            "/health/ready": [
                "get": OpenAPI.operation(
                    "The database answers (with a dispatcher or admin token also which database and map)",
                    tag: "Operations", response: "Health", errors: [.serviceUnavailable],
                    public: true)
            ],
            "/metrics": [
                "get": [
                    "summary": "Prometheus metrics", "tags": ["Operations"], "security": [[String: Any]](),
                    "responses": ["200": ["description": "Prometheus text format", "content": ["text/plain": [:]]]],
                ]
            ],
            "/openapi.json": [
                "get": [
                    "summary": "This document", "tags": ["Operations"], "security": [[String: Any]](),
                    "responses": ["200": ["description": "OpenAPI 3.1", "content": ["application/json": [:]]]],
                ]
            ],
        ]
    }
}
