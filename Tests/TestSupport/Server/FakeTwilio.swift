import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import LogisticsServer
import NIOCore
import Synchronization

/// A local stand-in for Twilio's Messages API (`POST /2010-04-01/Accounts/{AccountSid}/Messages.json`). It checks
/// what Twilio checks: HTTP Basic with the account SID and auth token, a form body, `To` in E.164, a `Body`, exactly
/// one of `From` and `MessagingServiceSid`, an absolute `StatusCallback` when there is one, and no parameter Twilio
/// does not know. It answers as Twilio does: 201 with the Message resource, or Twilio's error document (`code`,
/// `message`, `more_info`, `status`) — 20003 for bad credentials, 21211 for a number it cannot reach, and whatever
/// a test scripts for a number (429, 503).
final class FakeTwilio: Sendable {
    static let accountSid = "AC" + String(repeating: "0123456789abcdef", count: 2)
    static let authToken = "twilio-auth-token-not-a-real-one-9f8e7d"
    static let from = "+15005550006"
    /// Twilio's magic test number that is not a valid phone (its test credentials answer 21211 for it).
    static let invalidNumber = "+15005550001"

    struct Message: Sendable, Equatable {
        var to: String
        var from: String?
        var messagingServiceSid: String?
        var body: String
        var statusCallback: String?
        /// The Message resource's SID, which status callbacks name.
        var sid: String = ""
    }

    struct Scripted: Sendable {
        var status: HTTPResponse.Status
        var code: Int
        var message: String
        var retryAfter: String? = nil
    }

    struct State: Sendable {
        var messages: [Message] = []
        var attempts: [String: Int] = [:]
        var scripts: [String: [Scripted]] = [:]
        var violations: [String] = []
        /// Runs after a message is taken and before Twilio answers: a status callback can beat the answer.
        var beforeAnswer: (@Sendable (_ sid: String, _ to: String) async -> Void)?
    }

    let state = Mutex(State())
    private let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fake-twilio-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var snapshot: State { state.withLock { $0 } }

    func script(_ to: String, _ replies: Scripted...) { script(to, replies) }

    func script(_ to: String, _ replies: [Scripted]) {
        state.withLock { $0.scripts[to, default: []] += replies }
    }

    /// The messages sent to one phone, oldest first.
    func messages(to phone: String) -> [Message] { snapshot.messages.filter { $0.to == phone } }

    /// The six-digit code in the newest sign-in message to the phone.
    func latestCode(to phone: String) -> String? {
        guard let body = messages(to: phone).last(where: { $0.body.contains("sign-in code") })?.body,
            let range = body.range(of: #"\b[0-9]{6}\b"#, options: .regularExpression)
        else { return nil }
        return String(body[range])
    }

    func wait(
        _ what: String, timeout: Duration = .seconds(20), until condition: @escaping @Sendable (State) -> Bool
    ) async throws {
        guard await eventually(within: timeout, { condition(self.snapshot) ? true : nil }) != nil else {
            throw TestServer.NoAnswer(description: "fake Twilio: gave up waiting for \(what)")
        }
    }

    /// Server settings sending text messages to this fake on `port`, the auth token in a file as in production.
    func settings(port: Int, statusCallbackBase: String? = "https://deliveries.example.com") throws
        -> @Sendable (inout ServerConfiguration) -> Void
    {
        let tokenFile = directory.appendingPathComponent("twilio-auth-token")
        try (Self.authToken + "\n").write(to: tokenFile, atomically: true, encoding: .utf8)
        return { configuration in
            configuration.textMessages.provider = .twilio
            configuration.textMessages.twilioAccountSid = Self.accountSid
            configuration.textMessages.twilioAuthTokenFile = tokenFile.path
            configuration.textMessages.twilioFrom = Self.from
            configuration.textMessages.twilioBaseURL = "http://127.0.0.1:\(port)"
            configuration.publicURL = statusCallbackBase
        }
    }

    func run(_ body: @escaping @Sendable (_ port: Int) async throws -> Void) async throws {
        var logger = Logger(label: "fake-twilio")
        logger.logLevel = .critical
        let router = Router()
        router.post("/2010-04-01/Accounts/{sid}/Messages.json") { request, context in
            try await self.create(request, context: context)
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        try await app.test(.live) { client in try await body(client.port!) }
    }

    private static let known: Set<String> = [
        "To", "From", "MessagingServiceSid", "Body", "StatusCallback", "ApplicationSid", "MaxPrice",
        "ProvideFeedback", "Attempt", "ValidityPeriod", "ForceDelivery", "ContentRetention", "AddressRetention",
        "SmartEncoded", "PersistentAction", "ShortenUrls", "ScheduleType", "SendAt", "SendAsMms", "ContentSid",
        "ContentVariables", "MediaUrl", "RiskCheck",
    ]

    private func create(_ request: Request, context: BasicRequestContext) async throws -> Response {
        var request = request
        let sid = context.parameters.get("sid") ?? ""
        let expected = "Basic " + Data("\(Self.accountSid):\(Self.authToken)".utf8).base64EncodedString()
        guard sid == Self.accountSid, request.headers[.authorization] == expected else {
            return error(.unauthorized, 20003, "Authenticate")
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
        if let unknown = fields.keys.first(where: { !Self.known.contains($0) }) {
            return violation("unknown parameter \(unknown)")
        }
        guard let to = fields["To"] else { return error(.badRequest, 21604, "A 'To' phone number is required.") }
        guard let body = fields["Body"], !body.isEmpty, body.count <= 1600 else {
            return error(.badRequest, 21602, "Message body is required.")
        }
        guard (fields["From"] == nil) != (fields["MessagingServiceSid"] == nil) else {
            return error(
                .badRequest, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message.")
        }
        // A WhatsApp sender is the same number as `whatsapp:+…`, and writes to `whatsapp:` numbers only.
        if let from = fields["From"], from != Self.from, from != "whatsapp:" + Self.from {
            return error(
                .badRequest, 21606,
                "The From phone number \(from) is not a valid, SMS-capable inbound phone number or short code for your account."
            )
        }
        if let callback = fields["StatusCallback"], URL(string: callback)?.scheme?.hasPrefix("http") != true {
            return violation("StatusCallback \(callback)")
        }
        if fields["From"]?.hasPrefix("whatsapp:") != fields["To"]?.hasPrefix("whatsapp:") {
            return error(.badRequest, 63007, "Twilio could not find a Channel with the specified From address")
        }
        let attempt = state.withLock { state -> Scripted? in
            state.attempts[to, default: 0] += 1
            guard var queue = state.scripts[to], !queue.isEmpty else { return nil }
            let next = queue.removeFirst()
            state.scripts[to] = queue
            return next
        }
        if let attempt { return error(attempt.status, attempt.code, attempt.message, retryAfter: attempt.retryAfter) }
        let number = to.hasPrefix("whatsapp:") ? String(to.dropFirst("whatsapp:".count)) : to
        guard number.first == "+", number.dropFirst().allSatisfy(\.isNumber), (8...16).contains(number.count),
            number != Self.invalidNumber
        else { return error(.badRequest, 21211, "The 'To' number \(to) is not a valid phone number.") }
        let messageSid = "SM" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        state.withLock {
            $0.messages.append(
                Message(
                    to: to, from: fields["From"], messagingServiceSid: fields["MessagingServiceSid"], body: body,
                    statusCallback: fields["StatusCallback"], sid: messageSid))
        }
        if let beforeAnswer = state.withLock({ $0.beforeAnswer }) { await beforeAnswer(messageSid, to) }
        let resource: [String: Any?] = [
            "account_sid": Self.accountSid, "api_version": "2010-04-01", "body": body, "direction": "outbound-api",
            "from": fields["From"], "messaging_service_sid": fields["MessagingServiceSid"], "num_segments": "1",
            "sid": messageSid, "status": "queued", "to": to, "error_code": nil, "error_message": nil,
            "uri": "/2010-04-01/Accounts/\(Self.accountSid)/Messages/\(messageSid).json",
        ]
        return json(.created, resource.mapValues { $0 ?? NSNull() })
    }

    private func error(_ status: HTTPResponse.Status, _ code: Int, _ message: String, retryAfter: String? = nil)
        -> Response
    {
        var response = json(
            status,
            [
                "code": code, "message": message, "more_info": "https://www.twilio.com/docs/errors/\(code)",
                "status": Int(status.code),
            ])
        if let retryAfter { response.headers[.retryAfter] = retryAfter }
        return response
    }

    private func violation(_ what: String) -> Response {
        state.withLock { $0.violations.append(what) }
        return error(.badRequest, 20001, "Invalid request: \(what)")
    }

    private func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
