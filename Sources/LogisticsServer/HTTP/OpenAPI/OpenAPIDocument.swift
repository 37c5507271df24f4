import Foundation
import LogisticsCore

/// The OpenAPI 3.1 description of the REST API, served at `/openapi.json`. A test fails when a
/// served route is missing here or a documented one is not served.
enum OpenAPIDocument {
    static let json: Data = {
        let document: [String: Any] = [
            "openapi": "3.1.0",
            "info": [
                "title": "Rider Logistics API", "version": "1.0.0",
                "description":
                    "Last-mile delivery: orders, offers, delivery tasks, proof of delivery and live tracking. Every error is application/problem+json with a machine `code`.",
            ],
            "servers": [["url": "/"]],
            "security": [["bearer": [String]()]],
            "paths": OpenAPIPaths.all.merging(OpenAPIDeliveryPaths.all) { first, _ in first }
                .merging(OpenAPINavigation.paths) { first, _ in first }
                .merging(OpenAPITracking.paths) { first, _ in first }
                .merging(OpenAPINotifications.paths) { first, _ in first },
            "components": [
                "securitySchemes": [
                    "bearer": ["type": "http", "scheme": "bearer", "bearerFormat": "JWT"]
                ],
                "schemas": OpenAPISchemas.all.merging(OpenAPIDeliverySchemas.all) { first, _ in first }
                    .merging(OpenAPINavigation.schemas) { first, _ in first }
                    .merging(OpenAPITracking.schemas) { first, _ in first }
                    .merging(OpenAPINotifications.schemas) { first, _ in first },
                "parameters": [
                    "IdempotencyKey": [
                        "name": "Idempotency-Key", "in": "header", "required": false,
                        "description":
                            "Replays the first response for the same key and body; a different body is 422 IDEMPOTENCY_KEY_REUSED.",
                        // Printable ASCII without surrounding spaces: HTTP trims those, and an empty key is refused.
                        "schema": [
                            "type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]([ -~]*[!-~])?$",
                        ],
                    ]
                ],
            ],
        ]
        return (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
    }()
}

/// Helpers that keep each operation to a few lines.
enum OpenAPI {
    static func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }

    static func json(_ schema: [String: Any]) -> [String: Any] { ["application/json": ["schema": schema]] }

    static func pathParameter(_ name: String, schema: [String: Any] = ["type": "string", "format": "uuid"])
        -> [String: Any]
    {
        ["name": name, "in": "path", "required": true, "schema": schema]
    }

    static func queryParameter(_ name: String, _ schema: [String: Any], _ description: String) -> [String: Any] {
        ["name": name, "in": "query", "required": false, "schema": schema, "description": description]
    }

    /// One operation. Errors are grouped by HTTP status, each status listing its codes.
    static func operation(
        _ summary: String, tag: String, roles: [Role]? = nil, parameters: [[String: Any]] = [],
        body: String? = nil, bodyContentType: String = "application/json", success: Int = 200,
        response: String?, errors: [ErrorCode], idempotent: Bool = false, public isPublic: Bool = false
    ) -> [String: Any] {
        var operation: [String: Any] = ["summary": summary, "tags": [tag]]
        if let roles {
            operation["description"] = "Roles: " + roles.map(\.rawValue).joined(separator: ", ") + "."
        }
        var allParameters = parameters
        if idempotent { allParameters.append(["$ref": "#/components/parameters/IdempotencyKey"]) }
        if !allParameters.isEmpty { operation["parameters"] = allParameters }
        if let body {
            operation["requestBody"] = ["required": true, "content": [bodyContentType: ["schema": ref(body)]]]
        }
        var responses: [String: Any] = [:]
        var successResponse: [String: Any] = ["description": "Success"]
        if let response { successResponse["content"] = json(ref(response)) }
        responses[String(success)] = successResponse
        // Every client address and caller has a rate limit (RATE/BURST per instance; README "Rate limits").
        var allErrors = errors + [.rateLimited]
        if !isPublic { allErrors += [.unauthenticated, .serviceUnavailable] }
        // A malformed parameter (an id that is not a UUID, a bad Idempotency-Key) is refused before anything else.
        if !parameters.isEmpty || idempotent { allErrors += [.validationFailed] }
        if body != nil { allErrors += [.validationFailed, .payloadTooLarge, .unsupportedMediaType] }
        if idempotent { allErrors += [.idempotencyKeyReused, .idempotencyRequestInProgress] }
        operation["responses"] = self.responses(success: responses, errors: allErrors)
        if isPublic { operation["security"] = [[String: Any]]() }
        return operation
    }

    /// Success responses plus one problem response per error status, listing that status's codes.
    static func responses(success: [String: Any], errors: [ErrorCode]) -> [String: Any] {
        var responses = success
        for (status, codes) in Dictionary(grouping: Set(errors), by: \.httpStatus) {
            let names = codes.map(\.rawValue).sorted()
            responses[String(status)] = [
                "description": names.joined(separator: ", "),
                "content": ["application/problem+json": ["schema": ref("Problem"), "x-error-codes": names]],
            ]
        }
        return responses
    }
}
