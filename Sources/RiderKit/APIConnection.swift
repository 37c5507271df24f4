import Foundation
import NIOHTTP1

/// What every typed client of the API shares: the server's address, the token for each request, how requests go
/// out, and how answers and problem documents are read.
struct APIConnection: Sendable {
    let baseURL: String
    /// Called before every request: return a fresh token when the old one is about to expire; nil for the calls
    /// that need none (asking for a sign-in code).
    let token: @Sendable () async throws -> String?
    let transport: any RiderTransport
    let timeout: Duration

    init(
        baseURL: String, token: @escaping @Sendable () async throws -> String?, transport: any RiderTransport,
        timeout: Duration
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
        self.transport = transport
        self.timeout = timeout
    }

    func call<T: Decodable>(
        _ method: HTTPMethod, _ path: String, json: [String: Any]? = nil, body: [UInt8]? = nil,
        headers: [String: String] = [:], timeout: Duration? = nil
    ) async throws -> T {
        var request = RiderRequest(method: method.rawValue, url: baseURL + path)
        if let token = try await token() { request.headers["Authorization"] = "Bearer \(token)" }
        request.headers["User-Agent"] = "RiderKit/1"
        var payload = body
        if let json { payload = Array(try JSONSerialization.data(withJSONObject: json)) }
        if let payload {
            request.headers["Content-Type"] = "application/json"
            request.body = Data(payload)
        }
        for (name, value) in headers { request.headers[name] = value }
        let (status, data) = try await transport.send(request, timeout: timeout ?? self.timeout)
        guard (200..<300).contains(status) else {
            let problem =
                (try? RiderJSON.decoder.decode(RiderProblem.self, from: data))
                ?? RiderProblem(status: status, code: "HTTP_\(status)", title: "The server answered \(status)")
            throw RiderAPIError.problem(problem)
        }
        if T.self == NoContent.self { return NoContent() as! T }
        do {
            return try RiderJSON.decoder.decode(T.self, from: data)
        } catch {
            throw RiderAPIError.transport("unreadable answer to \(method) \(path): \(error)")
        }
    }
}

/// An answer whose body does not matter.
struct NoContent: Decodable {}
