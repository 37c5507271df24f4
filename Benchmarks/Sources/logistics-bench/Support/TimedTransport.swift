import AsyncHTTPClient
import Foundation
import RiderKit

/// RiderKit's transport for the load generator: each request waits for the pacer, then is timed under its method
/// and path with ids as `{id}` (`POST /orders/{id}/ready`), so the typed clients the apps use drive the load.
struct TimedTransport: RiderTransport {
    let inner: HTTPRiderTransport
    var recorder: LatencyRecorder?
    var pacer: Pacer?

    init(http: HTTPClient, recorder: LatencyRecorder? = nil, pacer: Pacer? = nil) {
        inner = HTTPRiderTransport(http: http)
        self.recorder = recorder
        self.pacer = pacer
    }

    func send(_ request: RiderRequest, timeout: Duration) async throws -> (status: Int, body: Data) {
        await pacer?.wait()
        let label = Self.label(request)
        let start = ContinuousClock.now
        do {
            let answer = try await inner.send(request, timeout: timeout)
            if (200..<300).contains(answer.status) {
                recorder?.record(label, seconds: (ContinuousClock.now - start).inSeconds)
            } else {
                recorder?.fail(label)
            }
            return answer
        } catch {
            recorder?.fail(label)
            throw error
        }
    }

    /// `GET /health/live`, the cheapest answer: the floor the benches measure the API beside.
    func health(_ base: String) async throws -> (status: Int, body: Data) {
        try await send(RiderRequest(method: "GET", url: base + "/health/live"), timeout: .seconds(30))
    }

    /// `PATCH /rider/tasks/{id}/status` for `PATCH http://…/api/v1/rider/tasks/3f…/status?x=y`.
    static func label(_ request: RiderRequest) -> String {
        var path = URLComponents(string: request.url)?.path ?? request.url
        if path.hasPrefix("/api/v1") { path.removeFirst("/api/v1".count) }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map {
            UUID(uuidString: String($0)) == nil ? String($0) : "{id}"
        }
        return request.method + " " + segments.joined(separator: "/")
    }
}
