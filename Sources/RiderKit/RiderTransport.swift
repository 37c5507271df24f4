import AsyncHTTPClient
import Foundation
import NIOCore

/// One API request as RiderKit builds it, free of any HTTP library's types, so an app can send it with whatever
/// its platform prefers (`HTTPRiderTransport` on servers and the simulator; `URLSessionRiderTransport` on phones).
public struct RiderRequest: Sendable {
    public var method: String
    public var url: String
    /// Header names as RiderKit writes them (`Authorization`, `Content-Type`, `Idempotency-Key`, …).
    public var headers: [String: String] = [:]
    public var body: Data?

    public init(method: String, url: String, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// Sends one request and returns the status and body, or throws `RiderAPIError.transport` when the network fails.
/// Tests and the simulator wrap a real one to cut the network.
public protocol RiderTransport: Sendable {
    func send(_ request: RiderRequest, timeout: Duration) async throws -> (status: Int, body: Data)
}

/// AsyncHTTPClient (SwiftNIO): for servers, the simulator and Linux.
public struct HTTPRiderTransport: RiderTransport {
    let http: HTTPClient

    public init(http: HTTPClient = .shared) { self.http = http }

    public func send(_ request: RiderRequest, timeout: Duration) async throws -> (status: Int, body: Data) {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.replaceOrAdd(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let (seconds, attoseconds) = timeout.components
            let response = try await http.execute(
                outgoing, timeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
            let body = try await response.body.collect(upTo: 8 * 1024 * 1024)
            return (Int(response.status.code), Data(body.readableBytesView))
        } catch {
            throw RiderAPIError.transport("\(error)")
        }
    }
}
