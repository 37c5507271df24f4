import Hummingbird
import Logging

/// One `debug` line per request with its route template, never the raw path: `/track/{trackingToken}` must not
/// put a customer's token into the logs. Placed after the request id, so the line carries it.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = LogisticsRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        context.logger.debug(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "route": .string(context.endpointPath ?? "unmatched"),
                "status": .stringConvertible(response.status.code),
                "duration_ms": .string(Self.milliseconds(ContinuousClock.now - start)),
            ])
        return response
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return "\(micros / 1000).\(String(repeating: "0", count: 3 - String(micros % 1000).count))\(micros % 1000)"
    }
}
