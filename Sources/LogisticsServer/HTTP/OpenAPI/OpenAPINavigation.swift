import LogisticsCore

/// The navigation endpoints and the route shape (RDR-017). `LOCATION_NOT_ROUTABLE` and `ROUTE_NOT_FOUND` (422) are
/// additions to the contract: a position too far from any road, or two places no legal route joins, are neither
/// malformed input (400) nor a provider outage (503).
enum OpenAPINavigation {
    static var paths: [String: Any] {
        // Decimal degrees, latitude within ±90 and longitude within ±180, as the server checks them.
        let latitude = "-?(90(\\.0+)?|[1-8]?[0-9](\\.[0-9]+)?)"
        let longitude = "-?(180(\\.0+)?|(1[0-7][0-9]|[1-9]?[0-9])(\\.[0-9]+)?)"
        let point: [String: Any] = [
            "type": "string", "pattern": "^\(latitude),\(longitude)$", "example": "43.7396,7.4276",
        ]
        let routeErrors: [ErrorCode] = [
            .forbidden, .validationFailed, .locationNotRoutable, .routeNotFound, .navigationUnavailable,
        ]
        // x and y run to 2^z - 1: a tile past that at a lower zoom is not there (404), not malformed.
        let tileNumber: [String: Any] = ["type": "integer", "minimum": 0, "maximum": (1 << 20) - 1]
        return [
            "/map/tiles/{z}/{x}/{y}": [
                "get": OpenAPI.operation(
                    "The loaded road map as a tile for the web pages: JSON {z, x, y, extent: 4096, roads: [{class, "
                        + "name, lines: [[x0, y0, x1, y1, …]]}], coast: [[…]], sea: [[…]]} in tile units (y down), "
                        + "small roads left out when zoomed out, lines simplified to half a pixel; sea rings filled "
                        + "even-odd; gzipped when accepted; ETag and a day's Cache-Control; empty lists where there "
                        + "is nothing",
                    tag: "Navigation",
                    parameters: [
                        OpenAPI.pathParameter("z", schema: tileNumber.merging(["maximum": 20]) { _, zoom in zoom }),
                        OpenAPI.pathParameter("x", schema: tileNumber), OpenAPI.pathParameter("y", schema: tileNumber),
                    ], response: nil, errors: [.validationFailed, .notFound, .navigationUnavailable], public: true)
            ],
            "/api/v1/routes": [
                "get": OpenAPI.operation(
                    "A route between two points (fastest by default; optimize=distance for the shortest)",
                    tag: "Navigation", roles: [.dispatcher, .admin],
                    parameters: [
                        required(OpenAPI.queryParameter("from", point, "Start as lat,lon")),
                        required(OpenAPI.queryParameter("to", point, "Destination as lat,lon")),
                        OpenAPI.queryParameter(
                            "profile", OpenAPISchemas.enumeration(["motorcycle", "car"]),
                            "Vehicle profile; the server's configured profile by default"),
                        OpenAPI.queryParameter(
                            "optimize", OpenAPISchemas.enumeration(["time", "distance"]), "time (default) or distance"),
                    ],
                    response: "Route", errors: routeErrors)
            ],
            "/api/v1/rider/tasks/{taskId}/route": [
                "get": OpenAPI.operation(
                    "Route to the task's next stop: the store before pickup, the customer after; also a re-route from "
                        + "wherever the rider is", tag: "Navigation", roles: [.rider],
                    parameters: [
                        OpenAPI.pathParameter("taskId"),
                        OpenAPI.queryParameter(
                            "from", point, "Current position as lat,lon; the last fix when absent"),
                        OpenAPI.queryParameter(
                            "heading", ["type": "number", "minimum": 0, "exclusiveMaximum": 360],
                            "Current heading; the route starts in this direction when the road allows"),
                    ],
                    response: "Route", errors: routeErrors + [.notFound, .conflict])
            ],
        ]
    }

    private static func required(_ parameter: [String: Any]) -> [String: Any] {
        var parameter = parameter
        parameter["required"] = true
        return parameter
    }

    static var schemas: [String: Any] {
        let number: [String: Any] = ["type": "number"]
        let string: [String: Any] = ["type": "string"]
        return [
            "Route": OpenAPISchemas.object(
                [
                    "distanceM": number, "durationS": number,
                    "etaAt": ["type": "string", "format": "date-time"],
                    "geometry": ["type": "string", "description": "Encoded polyline, precision 6"],
                    "legs": ["type": "array", "items": OpenAPI.ref("RouteLeg")],
                    "congestion": [
                        "type": "array", "description": "One entry per geometry segment",
                        "items": OpenAPISchemas.enumeration(["LOW", "MODERATE", "HEAVY", "SEVERE", "UNKNOWN"]),
                    ],
                    "provider": OpenAPISchemas.enumeration(["builtin", "external"]),
                    "dataAgeS": [
                        "type": ["integer", "null"], "description": "Age of the newest live speed used; null if none",
                    ],
                    "waypoints": [
                        "type": "array",
                        "items": OpenAPISchemas.object(
                            ["location": OpenAPI.ref("GeoPoint"), "name": string, "snapDistanceM": number],
                            ["location", "name", "snapDistanceM"]),
                    ],
                ], ["distanceM", "durationS", "etaAt", "geometry", "legs", "congestion", "provider", "waypoints"]),
            "RouteLeg": OpenAPISchemas.object(
                [
                    "distanceM": number, "durationS": number,
                    "steps": ["type": "array", "items": OpenAPI.ref("RouteStep")],
                ],
                ["distanceM", "durationS", "steps"]),
            "RouteStep": OpenAPISchemas.object(
                [
                    "maneuver": OpenAPISchemas.object(
                        [
                            "type": OpenAPISchemas.enumeration([
                                "depart", "turn", "new name", "continue", "roundabout", "arrive",
                            ]),
                            "modifier": OpenAPISchemas.enumeration([
                                "left", "right", "slight left", "slight right", "sharp left", "sharp right",
                                "straight", "uturn",
                            ]),
                            "location": OpenAPI.ref("GeoPoint"), "bearingAfter": ["type": "integer"],
                            "exit": ["type": "integer", "description": "Roundabout exit to take, from 1"],
                        ], ["type", "location", "bearingAfter"]),
                    "name": string, "distanceM": number, "durationS": number, "instruction": string,
                    "voiceInstructions": [
                        "type": "array",
                        "items": OpenAPISchemas.object(
                            ["distanceAlongStepM": number, "announcement": string],
                            ["distanceAlongStepM", "announcement"]),
                    ],
                    "geometryStart": [
                        "type": "integer", "description": "Index of the step's first point in the decoded geometry",
                    ],
                    "geometryEnd": ["type": "integer", "description": "Index of the step's last point"],
                ],
                [
                    "maneuver", "name", "distanceM", "durationS", "instruction", "voiceInstructions", "geometryStart",
                    "geometryEnd",
                ]),
        ]
    }
}
