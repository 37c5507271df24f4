import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import NIOCore

/// Health, metrics and the OpenAPI document: unauthenticated, for load balancers and scrapers.
struct OperationsRoutes {
    let admission: BearerAdmission
    let database: any SQLDatabase
    let navigator: Navigator
    let metrics: RequestMetrics

    /// Whether the request carries a valid dispatcher or admin token (a bad or missing one is simply not staff).
    private func isStaff(_ request: Request) async -> Bool {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer "),
            let actor = try? await admission.admit(bearer: String(header.dropFirst(7)))
        else { return false }
        return actor.role == .admin || actor.role == .dispatcher
    }

    func register(in routes: inout RouteTable) {
        routes.get("/health/live") { _, _ in try APIResponse.json(["status": "ok"]) }
        routes.get("/health/ready") { request, _ in
            do {
                try await database.ping()
            } catch {
                throw LogisticsError(
                    .serviceUnavailable, "The database is not answering", retryAfterSeconds: 5)
            }
            // Which database and which map this is help an operator and an attacker alike: staff tokens only.
            guard await isStaff(request) else { return try APIResponse.json(["status": "ready"]) }
            return try APIResponse.json([
                "status": "ready", "database": database.dialect.rawValue,
                "navigation": navigator.provider.readiness,
            ])
        }
        routes.get("/metrics") { _, _ in
            APIResponse(
                status: .ok, body: Data(metrics.exposition().utf8), contentType: "text/plain; version=0.0.4")
        }
        routes.get("/openapi.json") { _, _ in
            APIResponse(status: .ok, body: try OpenAPIDocument.served.get(), contentType: "application/json")
        }
    }
}
