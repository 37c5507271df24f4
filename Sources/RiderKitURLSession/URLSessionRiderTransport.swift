import Foundation
import RiderKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// URLSession: what an iPhone or Android-on-Swift app already uses, with the system's proxy, VPN and certificate
/// settings. A target of its own, so the server binary does not link FoundationNetworking (libcurl on Linux).
public struct URLSessionRiderTransport: RiderTransport {
    let session: URLSession

    /// No cache and no cookies: every answer is about the rider's live state, and the token is the only credential.
    public static func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        return URLSession(configuration: configuration)
    }

    public init(session: URLSession = URLSessionRiderTransport.makeSession()) { self.session = session }

    public func send(_ request: RiderRequest, timeout: Duration) async throws -> (status: Int, body: Data) {
        guard let url = URL(string: request.url) else { throw RiderAPIError.transport("bad URL \(request.url)") }
        var outgoing = URLRequest(url: url)
        outgoing.httpMethod = request.method
        for (name, value) in request.headers { outgoing.setValue(value, forHTTPHeaderField: name) }
        outgoing.httpBody = request.body
        // URLSession's own timeout restarts with every byte received; the caller asked for the whole exchange.
        let (seconds, attoseconds) = timeout.components
        outgoing.timeoutInterval = Double(seconds) + Double(attoseconds) / 1e18
        let exchange = outgoing
        do {
            return try await withThrowingTaskGroup(of: (status: Int, body: Data).self) { group in
                group.addTask {
                    let (data, response) = try await session.data(for: exchange)
                    guard let http = response as? HTTPURLResponse else {
                        throw RiderAPIError.transport("not an HTTP answer")
                    }
                    return (http.statusCode, data)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw RiderAPIError.transport("no answer within \(timeout)")
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch let error as RiderAPIError {
            throw error
        } catch {
            throw RiderAPIError.transport("\(error.localizedDescription)")
        }
    }
}
