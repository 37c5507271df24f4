import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A local stand-in for Twilio's Messages API that notes when each message arrived. It checks what the server
/// must get right for Twilio to accept a message (the path with the account SID, HTTP Basic with the SID and auth
/// token, a form with `To` in E.164, `From`, `Body` and an absolute `StatusCallback`) and answers 201 with a
/// Message resource as Twilio does; anything else is a violation, and a run with one fails. The tests' FakeTwilio
/// checks more (error documents, scripted outages); the arrival time is what this one adds.
final class TwilioSink: Sendable {
    static let accountSid = "AC" + String(repeating: "0123456789abcdef", count: 2)
    static let authToken = "twilio-auth-token-not-a-real-one-9f8e7d"
    static let from = "+15005550006"

    struct Arrival: Sendable {
        var body: String
        var at: ContinuousClock.Instant
    }

    private struct State {
        var arrivals: [String: [Arrival]] = [:]
        var count = 0
        var violations: [String] = []
    }

    private let state = Mutex(State())

    /// The messages to one phone in the order they arrived.
    func arrivals(to phone: String) -> [Arrival] { state.withLock { $0.arrivals[phone] ?? [] } }
    var count: Int { state.withLock { $0.count } }
    var violations: [String] { state.withLock { $0.violations } }

    /// Serves on a free port on 127.0.0.1 while `body` runs.
    func run(_ body: @escaping @Sendable (_ port: Int) async throws -> Void) async throws {
        var logger = Logger(label: "twilio-sink")
        logger.logLevel = .critical
        let router = Router()
        router.post("/2010-04-01/Accounts/{sid}/Messages.json") { request, context in
            try await self.create(request, context: context)
        }
        let (ports, reporter) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                reporter.yield(channel.localAddress?.port ?? 0)
                reporter.finish()
            }, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            for await port in ports { try await body(port) }
            group.cancelAll()
        }
    }

    private func create(_ request: Request, context: BasicRequestContext) async throws -> Response {
        // Noted before the body is read: the moment the provider request reached the provider.
        let at = ContinuousClock.now
        var request = request
        let expected = "Basic " + Data("\(Self.accountSid):\(Self.authToken)".utf8).base64EncodedString()
        guard context.parameters.get("sid") == Self.accountSid, request.headers[.authorization] == expected else {
            return violation("credentials or account SID", status: .unauthorized)
        }
        guard request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true else {
            return violation("content type \(request.headers[.contentType] ?? "none")")
        }
        let text = String(buffer: try await request.collectBody(upTo: 64 * 1024))
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            guard parts.count == 2, fields[parts[0]] == nil else { return violation("form field \(pair)") }
            fields[parts[0]] = parts[1]
        }
        guard let to = fields["To"], to.first == "+", to.dropFirst().allSatisfy(\.isNumber),
            (8...16).contains(to.count)
        else { return violation("To \(fields["To"] ?? "missing")") }
        guard let body = fields["Body"], !body.isEmpty, body.count <= 1600 else { return violation("Body") }
        guard fields["From"] == Self.from else { return violation("From \(fields["From"] ?? "missing")") }
        if let callback = fields["StatusCallback"], URL(string: callback)?.scheme?.hasPrefix("http") != true {
            return violation("StatusCallback \(callback)")
        }
        if let unknown = fields.keys.first(where: { !["To", "From", "Body", "StatusCallback"].contains($0) }) {
            return violation("unexpected parameter \(unknown)")
        }
        state.withLock {
            $0.arrivals[to, default: []].append(Arrival(body: body, at: at))
            $0.count += 1
        }
        let sid = "SM" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let resource: [String: Any] = [
            "account_sid": Self.accountSid, "api_version": "2010-04-01", "body": body, "direction": "outbound-api",
            "from": Self.from, "num_segments": "1", "sid": sid, "status": "queued", "to": to,
            "uri": "/2010-04-01/Accounts/\(Self.accountSid)/Messages/\(sid).json",
        ]
        return json(.created, resource)
    }

    private func violation(_ what: String, status: HTTPResponse.Status = .badRequest) -> Response {
        state.withLock { $0.violations.append(what) }
        // A permanent Twilio error code: the server dead-letters the message rather than retrying it.
        return json(status, ["code": 21211, "message": "Invalid request: \(what)", "status": Int(status.code)])
    }

    private func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
