import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import LogisticsStore
import Synchronization
import Testing

@testable import TestSupport

/// SMS through Twilio's API shape: errors retried or refused as Twilio's answers say, dead letters, and nothing
/// secret in the log.
@Suite("Text messages through Twilio", .timeLimit(.minutes(3)))
struct TextMessageProviderTests {
    @Test(
        "503 and 429 are retried with Retry-After, then sent; 21211 is refused at once; a lasting outage is dead-lettered"
    )
    func retriesAndDeadLetters() async throws {
        try await SignInTests.withTwilio(.sqlite, configure: { $0.textMessages.retryBudgetSeconds = 60 }) {
            twilio, server in
            let admin = try await server.token(.admin)
            twilio.script(
                "+37799110001",
                .init(status: .serviceUnavailable, code: 20500, message: "Internal Server Error"),
                .init(status: .tooManyRequests, code: 20429, message: "Too Many Requests", retryAfter: "2"))
            _ = try await server.send(
                .post, "/api/v1/riders", token: admin,
                json: ["name": "Retry Rider", "phone": "+37799110001", "vehicle": "CAR"])
            // The first retry comes within 2 s of the server's clock (full jitter over the policy's base).
            for _ in 0..<100 where twilio.snapshot.attempts["+37799110001"] ?? 0 < 2 {
                server.clock.advance(by: 2.1)
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(twilio.snapshot.attempts["+37799110001"] == 2)
            // The retry waits for at least Retry-After on the server's clock.
            server.clock.advance(by: 1)
            try await Task.sleep(for: .milliseconds(700))
            #expect(twilio.messages(to: "+37799110001").isEmpty)
            server.clock.advance(by: 10)
            try await twilio.wait("the retried invitation") { !$0.messages.filter { $0.to == "+37799110001" }.isEmpty }

            // A number Twilio says is not valid: one attempt, then a dead letter naming Twilio's code.
            _ = try await server.send(
                .post, "/api/v1/riders", token: admin,
                json: ["name": "Bad Number", "phone": FakeTwilio.invalidNumber, "vehicle": "CAR"])
            let dead = try await eventually {
                try await server.count("notification_deliveries", "channel = 'sms' AND status = 'DEAD'") == 1
                    ? true : nil
            }
            #expect(dead == true)
            #expect(twilio.snapshot.attempts[FakeTwilio.invalidNumber] == 1)
            let letters = try await server.send(.get, "/api/v1/webhooks/dead-letters", token: admin)
            #expect(letters.text.contains("21211"), "\(letters.text)")

            // An outage longer than the budget: retried, then given up.
            twilio.script(
                "+37799110002",
                Array(
                    repeating: FakeTwilio.Scripted(status: .serviceUnavailable, code: 20500, message: "Down"), count: 50
                ))
            _ = try await server.send(
                .post, "/api/v1/riders", token: admin,
                json: ["name": "Outage Rider", "phone": "+37799110002", "vehicle": "CAR"])
            for _ in 0..<20 {
                try await Task.sleep(for: .milliseconds(150))
                server.clock.advance(by: 10)
            }
            let given = try await eventually {
                try await server.count("notification_deliveries", "channel = 'sms' AND status = 'DEAD'") == 2
                    ? true : nil
            }
            #expect(given == true)
            #expect((twilio.snapshot.attempts["+37799110002"] ?? 0) >= 2)
        }
    }

    @Test("X-Twilio-Signature as Twilio's security guide computes it: its own example")
    func signatureVector() {
        let parameters = [
            ("CallSid", "CA1234567890ABCDE"), ("Caller", "+12349013030"), ("Digits", "1234"), ("From", "+12349013030"),
            ("To", "+18005551212"),
        ]
        let url = "https://mycompany.com/myapp.php?foo=1&bar=2"
        #expect(
            TwilioSignature.sign(url: url, parameters: parameters, authToken: "12345") == "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
        )
        #expect(
            TwilioSignature.isValid(
                "0/KCTR6DLpKmkAf8muzZqo1nDgQ=", url: url, parameters: parameters, authToken: "12345"))
        #expect(
            !TwilioSignature.isValid(
                "0/KCTR6DLpKmkAf8muzZqo1nDgQ=", url: url, parameters: parameters, authToken: "54321"))
    }

    @Test(
        "Twilio's status callback: signed, it records the message's fate; unsigned or forged, 403 and nothing changes")
    func statusCallback() async throws {
        try await SignInTests.withTwilio(.sqlite) { twilio, server in
            _ = try await SignInTests.invite(server, twilio, phone: "+37799110007", name: "Callback Rider")
            try await twilio.wait("the invitation") { !$0.messages.isEmpty }
            let row = try await eventually {
                try await server.database.first(
                    "SELECT provider_id FROM notification_deliveries WHERE channel = 'sms' AND provider_id IS NOT NULL")
            }
            let sid = try #require(row?.optionalString("provider_id"))
            #expect(sid.hasPrefix("SM"))
            let url = "https://deliveries.example.com/api/v1/providers/twilio/status"
            let fields = [
                ("AccountSid", FakeTwilio.accountSid), ("MessageSid", sid), ("MessageStatus", "undelivered"),
                ("ErrorCode", "30003"), ("To", "+37799110007"),
            ]
            let body = Data(
                fields.map { "\($0.0)=\($0.1.replacingOccurrences(of: "+", with: "%2B"))" }.joined(separator: "&").utf8)
            let form = "application/x-www-form-urlencoded"
            let path = "/api/v1/providers/twilio/status"
            let forged = TwilioSignature.sign(url: url, parameters: fields, authToken: "not-the-token")
            for headers in [[:], ["X-Twilio-Signature": forged]] {
                let refused = try await server.send(.post, path, raw: body, contentType: form, headers: headers)
                #expect(refused.status == 403, "\(headers)")
            }
            #expect(try await server.count("notification_deliveries", "provider_status IS NOT NULL") == 0)
            let signature = TwilioSignature.sign(url: url, parameters: fields, authToken: FakeTwilio.authToken)
            let recorded = try await server.send(
                .post, path, raw: body, contentType: form, headers: ["X-Twilio-Signature": signature])
            #expect(recorded.status == 204, "\(recorded.text)")
            #expect(
                try await server.count(
                    "notification_deliveries",
                    "provider_id = ? AND provider_status = 'undelivered' AND last_error LIKE '%30003%'",
                    [.text(sid)]) == 1)
        }
    }

    @Test("the auth token, codes and refresh tokens never reach the server log")
    func nothingSecretLogged() async throws {
        let logs = NavigatorLoggingTests.CapturedLogs()
        let twilio = try FakeTwilio()
        try await twilio.run { port in
            let settings = try twilio.settings(port: port)
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.dataDirectory =
                FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID())").path
            configuration.tokens.jwtSecret = "test-secret-that-is-long-enough-for-production-use"
            settings(&configuration)
            var logger = Logger(label: "secrets") { _ in NavigatorLoggingTests.CapturingHandler(store: logs) }
            logger.logLevel = .trace
            let built = try await buildApplication(configuration, clock: ManualWallClock(Date()), logger: logger)
            try await built.application.test(.live) { client in
                let server = TestServer(
                    client: client, components: built.components, clock: built.components.clock as! ManualWallClock,
                    kind: .sqlite, routes: built.routes)
                let invited = try await SignInTests.invite(server, twilio, phone: "+37799110003", name: "Quiet Rider")
                try await twilio.wait("the invitation") { !$0.messages.isEmpty }
                // The code's first send is refused for our credentials (logged as a retry), the second goes out.
                twilio.script("+37799110003", .init(status: .unauthorized, code: 20003, message: "Authenticate"))
                #expect(
                    try await server.send(.post, "/api/v1/auth/code", json: ["phone": invited.phone]).status == 202)
                for _ in 0..<100 where twilio.latestCode(to: invited.phone) == nil {
                    server.clock.advance(by: 3)
                    try await Task.sleep(for: .milliseconds(100))
                }
                let sent = try #require(twilio.latestCode(to: invited.phone))
                let signedIn = try await server.send(
                    .post, "/api/v1/auth/token", json: ["phone": invited.phone, "code": sent])
                let refresh = try #require(signedIn["refreshToken"] as? String)
                _ = try await server.send(.post, "/api/v1/auth/refresh", json: ["refreshToken": refresh])
                let code = try #require(twilio.latestCode(to: invited.phone))
                let logged = logs.lines.withLock { $0 }.map { "\($0.0) \($0.1) \($0.2)" }.joined(separator: "\n")
                #expect(!logged.isEmpty)
                for secret in [FakeTwilio.authToken, refresh, code, "Basic "] {
                    #expect(!logged.contains(secret), "the log holds \(secret.prefix(8))…")
                }
            }
        }
    }
}
