import Foundation
import Hummingbird
import Prometheus

/// Request count and latency by route template and status, exposed at `/metrics`.
final class RequestMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
        .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1), .seconds(2),
        .seconds(5),
    ]

    func record(route: String, method: String, status: Int, duration: Duration) {
        let labels = [("route", route), ("method", method), ("status", String(status))]
        registry.counter(.httpRequests, labels: labels).increment()
        registry.durationHistogram(.httpRequestDuration, labels: labels, buckets: Self.buckets)
            .record(duration)
    }

    /// Open WebSockets by stream (`customer`, `rider`, `dispatch`), moved up and down as they open and close.
    func socketOpened(_ stream: String) {
        registry.gauge(.webSocketConnections, labels: [("stream", stream)]).increment()
    }
    /// A socket closed by the server for its client's behaviour: `behind` (its backlog passed the limits), `flood`
    /// (it sent messages faster than allowed) or `ping` (it did not answer a ping in time).
    func socketCutOff(_ stream: String, reason: String) {
        registry.counter(.webSocketCutOff, labels: [("stream", stream), ("reason", reason)])
            .increment()
    }

    /// A socket stopped reading its client until the messages it holds are worked off.
    func socketReadsHeld(_ stream: String) {
        registry.counter(.webSocketReadsHeld, labels: [("stream", stream)]).increment()
    }

    func socketClosed(_ stream: String) {
        registry.gauge(.webSocketConnections, labels: [("stream", stream)]).decrement()
    }

    func exposition() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}

struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = LogisticsRequestContext
    let metrics: RequestMetrics
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        // Unmatched paths share one label so scanners cannot blow up the series count.
        let route = context.endpointPath ?? "unmatched"
        // Methods a client makes up would each start new series: those count as OTHER.
        let method = Self.knownMethods.contains(request.method.rawValue) ? request.method.rawValue : "OTHER"
        metrics.record(
            route: route, method: method, status: response.status.code, duration: ContinuousClock.now - start)
        return response
    }
}
