import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import LogisticsCore
import LogisticsServer
import NIOCore
import Synchronization

/// A local stand-in for Meta's WhatsApp Cloud API (`POST /{version}/{phone-number-id}/messages`). It checks what
/// the Cloud API checks of a template message: a Bearer token, JSON, `messaging_product: "whatsapp"`, a `to` of
/// digits, `type: "template"` with a `template.name` it knows (approved), `template.language.code`, and body
/// `components` whose text parameters match the template's count. It answers as Meta does: 200 with
/// `messages[0].id` (`wamid.…`), or `{"error": {message, type, code, error_data, fbtrace_id}}` — 190 for a bad
/// token, 132001 for a template that does not exist in that language, 132000 for a wrong number of parameters,
/// and whatever a test scripts (130429 throttling, 131000 trouble). It signs webhooks as Meta does.
final class FakeWhatsApp: Sendable {
    static let phoneNumberId = "106540352242922"
    static let accessToken = "EAAG-not-a-real-token-7c1d"
    static let appSecret = "app-secret-not-a-real-one-55aa"
    static let verifyToken = "verify-me-please"

    struct Message: Sendable, Equatable {
        var id: String
        var to: String
        var template: String
        var language: String
        var parameters: [String]
    }

    struct Scripted: Sendable {
        var status: HTTPResponse.Status
        var code: Int
        var message: String
    }

    struct State: Sendable {
        var messages: [Message] = []
        var attempts: [String: Int] = [:]
        var scripts: [String: [Scripted]] = [:]
        var violations: [String] = []
    }

    /// Approved templates: name and language → the number of body parameters.
    let approved: [String: Int]
    let state = Mutex(State())
    private let directory: URL

    init(approved: [String: Int]) throws {
        self.approved = approved
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fake-whatsapp-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var snapshot: State { state.withLock { $0 } }

    func script(_ to: String, _ replies: Scripted...) { state.withLock { $0.scripts[to, default: []] += replies } }

    func messages(to phone: String) -> [Message] {
        snapshot.messages.filter { $0.to == String(phone.drop { $0 == "+" }) }
    }

    func wait(
        _ what: String, timeout: Duration = .seconds(20), until condition: @escaping @Sendable (State) -> Bool
    ) async throws {
        guard await eventually(within: timeout, { condition(self.snapshot) ? true : nil }) != nil else {
            throw TestServer.NoAnswer(description: "fake WhatsApp: gave up waiting for \(what)")
        }
    }

    /// Server settings sending WhatsApp to this fake on `port`, the secrets in files as in production.
    func settings(port: Int) throws -> @Sendable (inout ServerConfiguration) -> Void {
        func file(_ name: String, _ value: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try (value + "\n").write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
        let token = try file("token", Self.accessToken)
        let secret = try file("app-secret", Self.appSecret)
        let verify = try file("verify-token", Self.verifyToken)
        return { configuration in
            configuration.customerMessages.whatsAppProvider = .cloud
            configuration.customerMessages.whatsAppPhoneNumberId = Self.phoneNumberId
            configuration.customerMessages.whatsAppTokenFile = token
            configuration.customerMessages.whatsAppAppSecretFile = secret
            configuration.customerMessages.whatsAppVerifyTokenFile = verify
            configuration.customerMessages.whatsAppBaseURL = "http://127.0.0.1:\(port)"
        }
    }

    /// A webhook notification as Meta sends it, and its `X-Hub-Signature-256`.
    static func signedStatus(_ messageId: String, _ status: String, errorCode: Int? = nil) -> (Data, String) {
        var entry: [String: Any] = ["id": messageId, "status": status, "timestamp": "1733390000", "recipient_id": "x"]
        if let errorCode { entry["errors"] = [["code": errorCode, "title": "Message undeliverable"]] }
        return signed(["statuses": [entry]])
    }

    static func signedIncoming(from phone: String, text: String) -> (Data, String) {
        signed([
            "contacts": [["profile": ["name": "Customer"], "wa_id": String(phone.dropFirst())]],
            "messages": [
                [
                    "from": String(phone.dropFirst()), "id": "wamid.in\(UUID().uuidString.prefix(8))",
                    "timestamp": "1733390000", "type": "text", "text": ["body": text],
                ]
            ],
        ])
    }

    static func signed(_ value: [String: Any], secret: String = appSecret) -> (Data, String) {
        var value = value
        value["messaging_product"] = "whatsapp"
        value["metadata"] = ["display_phone_number": "15550783881", "phone_number_id": phoneNumberId]
        let document: [String: Any] = [
            "object": "whatsapp_business_account",
            "entry": [["id": "102290129340398", "changes": [["field": "messages", "value": value]]]],
        ]
        let body = (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])) ?? Data()
        return (body, WhatsAppSignature.sign(body: Array(body), appSecret: secret))
    }

    func run(_ body: @escaping @Sendable (_ port: Int) async throws -> Void) async throws {
        var logger = Logger(label: "fake-whatsapp")
        logger.logLevel = .critical
        let router = Router()
        router.post("/{version}/{phoneNumberId}/messages") { request, context in
            try await self.send(request, context: context)
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        try await app.test(.live) { client in try await body(client.port!) }
    }

    private func send(_ request: Request, context: BasicRequestContext) async throws -> Response {
        var request = request
        guard request.headers[.authorization] == "Bearer \(Self.accessToken)" else {
            return error(.unauthorized, 190, "Invalid OAuth access token - Cannot parse access token", "OAuthException")
        }
        guard context.parameters.get("version")?.hasPrefix("v") == true,
            context.parameters.get("phoneNumberId") == Self.phoneNumberId
        else { return violation("path \(request.uri.path)") }
        guard request.headers[.contentType]?.hasPrefix("application/json") == true else {
            return violation("content type \(request.headers[.contentType] ?? "none")")
        }
        let data = Data(buffer: try await request.collectBody(upTo: 64 * 1024))
        guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return violation("body is not a JSON object")
        }
        let known: Set<String> = [
            "messaging_product", "recipient_type", "to", "type", "template", "context", "biz_opaque_callback_data",
        ]
        if let unknown = document.keys.first(where: { !known.contains($0) }) { return violation("field \(unknown)") }
        guard document["messaging_product"] as? String == "whatsapp" else { return violation("messaging_product") }
        guard let to = document["to"] as? String, !to.isEmpty, to.allSatisfy(\.isNumber) else {
            return error(.badRequest, 131009, "(#131009) Parameter value is not valid", "OAuthException")
        }
        guard document["type"] as? String == "template", let template = document["template"] as? [String: Any],
            let name = template["name"] as? String,
            let language = (template["language"] as? [String: Any])?["code"] as? String
        else { return violation("a template message needs template.name and template.language.code") }
        let components = template["components"] as? [[String: Any]] ?? []
        var parameters: [String] = []
        for component in components {
            guard component["type"] as? String == "body" else { return violation("component \(component)") }
            for parameter in component["parameters"] as? [[String: Any]] ?? [] {
                guard parameter["type"] as? String == "text", let text = parameter["text"] as? String, !text.isEmpty
                else { return violation("parameter \(parameter)") }
                parameters.append(text)
            }
        }
        let attempt = state.withLock { state -> Scripted? in
            state.attempts["+" + to, default: 0] += 1
            guard var queue = state.scripts["+" + to], !queue.isEmpty else { return nil }
            let next = queue.removeFirst()
            state.scripts["+" + to] = queue
            return next
        }
        if let attempt { return error(attempt.status, attempt.code, attempt.message, "OAuthException") }
        guard let expected = approved["\(name)/\(language)"] else {
            return error(
                .notFound, 132001, "(#132001) Template name does not exist in the translation", "OAuthException",
                details: "template name (\(name)) does not exist in \(language)")
        }
        guard expected == parameters.count else {
            return error(
                .badRequest, 132000, "(#132000) Number of parameters does not match the expected number of params",
                "OAuthException")
        }
        let id = "wamid.HBgL" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        state.withLock {
            $0.messages.append(
                Message(id: id, to: to, template: name, language: language, parameters: parameters))
        }
        return json(
            .ok,
            [
                "messaging_product": "whatsapp", "contacts": [["input": to, "wa_id": to]],
                "messages": [["id": id, "message_status": "accepted"]],
            ])
    }

    private func error(
        _ status: HTTPResponse.Status, _ code: Int, _ message: String, _ type: String, details: String? = nil
    ) -> Response {
        var error: [String: Any] = ["message": message, "type": type, "code": code, "fbtrace_id": "AbCdEf123"]
        if let details { error["error_data"] = ["messaging_product": "whatsapp", "details": details] }
        return json(status, ["error": error])
    }

    private func violation(_ what: String) -> Response {
        state.withLock { $0.violations.append(what) }
        return error(.badRequest, 100, "Invalid parameter: \(what)", "OAuthException")
    }

    private func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
