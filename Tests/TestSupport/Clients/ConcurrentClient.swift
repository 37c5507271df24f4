import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// One connection per request, so requests really run at the same time (the harness client keeps
/// one connection and would serialise them). With `tls`, over HTTPS.
enum ConcurrentClient {
    static func send(
        port: Int, _ method: HTTPRequest.Method, _ path: String, token: String? = nil, jsonBody: Data? = nil,
        headers extra: [String: String] = [:], tls: TestClient.Configuration = .init()
    ) async throws -> Reply {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer? = nil
        if let jsonBody {
            body = ByteBuffer(bytes: jsonBody)
            headers[.contentType] = "application/json"
        }
        for (name, value) in extra { headers[HTTPField.Name(name)!] = value }
        let finalHeaders = headers
        let finalBody = body
        return try await TestServer.answered(within: .seconds(60), "\(method) \(path) on port \(port)") {
            try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: tls) { client in
                let response = try await client.execute(
                    .init(path, method: method, headers: finalHeaders, body: finalBody))
                return Reply(
                    status: response.status.code, headers: response.headers,
                    body: Data(buffer: response.body ?? ByteBuffer()))
            }
        }
    }
}
