import Foundation
import RiderKit
import Synchronization

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

    /// One session for the process. FoundationNetworking on Linux tears a dropped session's libcurl handles down
    /// racing their dispatch sources (swift-corelibs-foundation #4791, #5491): a session per transport, let go
    /// at the end of each test, corrupted the heap now and then (a crash in an unrelated object's deinit).
    public static let shared = makeSession()

    public init(session: URLSession = URLSessionRiderTransport.shared) { self.session = session }

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
        let session = self.session
        // Whichever comes first, the answer or the deadline. A request still running past the deadline is left to
        // URLSession's own timeout (set above): cancelling it can deadlock FoundationNetworking on Linux when the
        // cancel meets the request being set up (URLSessionTask.cancel and configureEasyHandle waited on each other
        // in a CI run), and a task group would wait for it.
        return try await withCheckedThrowingContinuation { continuation in
            let outcome = FirstOutcome(continuation)
            Task {
                do {
                    let (data, response) = try await session.data(for: exchange)
                    guard let http = response as? HTTPURLResponse else {
                        throw RiderAPIError.transport("not an HTTP answer")
                    }
                    outcome.resolve(.success((http.statusCode, data)))
                } catch let error as RiderAPIError {
                    outcome.resolve(.failure(error))
                } catch {
                    outcome.resolve(.failure(RiderAPIError.transport("\(error.localizedDescription)")))
                }
            }
            Task {
                try? await Task.sleep(for: timeout)
                outcome.resolve(.failure(RiderAPIError.transport("no answer within \(timeout)")))
            }
        }
    }
}

/// Resumes a continuation once, with whichever result comes first.
private final class FirstOutcome: Sendable {
    private let continuation: Mutex<CheckedContinuation<(status: Int, body: Data), any Error>?>

    init(_ continuation: CheckedContinuation<(status: Int, body: Data), any Error>) {
        self.continuation = Mutex(continuation)
    }

    /// True when this result was the first.
    @discardableResult
    func resolve(_ result: Result<(status: Int, body: Data), any Error>) -> Bool {
        guard
            let waiting = continuation.withLock({ state in
                defer { state = nil }; return state
            })
        else { return false }
        waiting.resume(with: result)
        return true
    }
}
