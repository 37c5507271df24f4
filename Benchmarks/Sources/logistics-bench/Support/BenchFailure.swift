import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A JSON client for the load generator (which times every call under an endpoint label) and the demo's
/// simulated rider (which does not).
struct BenchClient: Sendable {
    let http: HTTPClient
    let base: String
    var recorder: LatencyRecorder?
    var pacer: Pacer? = nil

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    @discardableResult
    func call(
        _ label: String, _ method: HTTPMethod, _ path: String, token: String?, json: [String: Any]? = nil,
        expect: Int = 200
    ) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        await pacer?.wait()
        let start = ContinuousClock.now
        let response = try await http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        let elapsed = ContinuousClock.now - start
        guard Int(response.status.code) == expect else {
            recorder?.fail(label)
            throw Failure(description: "\(label): HTTP \(response.status.code) \(String(buffer: body).prefix(200))")
        }
        recorder?.record(label, seconds: elapsed.inSeconds)
        return ((try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any]) ?? [:]
    }
}
