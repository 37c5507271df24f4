import Foundation
import Hummingbird
import LogisticsCore
import NIOCore

/// Health, metrics and the OpenAPI document: unauthenticated, for load balancers and scrapers.
struct OperationsRoutes {
    let services: LogisticsServices
    let metrics: RequestMetrics

    func register(in routes: inout RouteTable) {
        routes.get("/health/live") { _, _ in try APIResponse.json(["status": "ok"]) }
        routes.get("/health/ready") { _, _ in
            do {
                try await services.repository.ping()
            } catch {
                throw LogisticsError(
                    .serviceUnavailable, "The database is not answering", retryAfterSeconds: 5)
            }
            return try APIResponse.json([
                "status": "ready", "database": services.databaseDialect,
                "navigation": services.navigator.provider.readiness,
            ])
        }
        routes.get("/metrics") { _, _ in
            APIResponse(
                status: .ok, body: Data(metrics.exposition().utf8), contentType: "text/plain; version=0.0.4")
        }
        routes.get("/openapi.json") { _, _ in
            APIResponse(status: .ok, body: OpenAPIDocument.json, contentType: "application/json")
        }
    }
}
