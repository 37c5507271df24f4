import Foundation
import LogisticsServer
import RiderKit
import Testing

@testable import TestSupport

/// RiderKit's sign-in client against the real server, with the SMS carried by the local Twilio fake: what an app
/// does to sign a rider in by phone.
@Suite("RiderKit sign-in by phone", .timeLimit(.minutes(2)))
struct SignInAPITests {
    /// A server with the Twilio fake, a rider an admin added with `phone`, and the client for the server.
    static func withRider(
        phone: String, _ body: @escaping @Sendable (SignInAPI, FakeTwilio, TestServer, Reply) async throws -> Void
    ) async throws {
        let twilio = try FakeTwilio()
        try await twilio.run { port in
            let settings = try twilio.settings(port: port)
            try await TestServer.run(
                .sqlite, mode: .live,
                configure: {
                    settings(&$0)
                    $0.rateLimits = .off
                }
            ) { server in
                let admin = try await server.token(.admin)
                let invited = try await server.send(
                    .post, "/api/v1/riders", token: admin,
                    json: ["name": "Asha Rao", "phone": phone, "vehicle": "MOTORCYCLE"])
                #expect(invited.status == 201, "\(invited.text)")
                try await body(SignInAPI(baseURL: "http://127.0.0.1:\(server.port)"), twilio, server, invited)
                #expect(twilio.snapshot.violations == [], "requests Twilio would refuse")
            }
        }
    }

    /// Asks for a code the way the app does and returns it as the phone received it.
    static func code(_ signIn: SignInAPI, _ twilio: FakeTwilio, phone: String) async throws -> String {
        try await signIn.requestCode(phone: phone)
        try await twilio.wait("the sign-in code") { state in
            state.messages.contains { $0.to == phone && $0.body.contains("sign-in code") }
        }
        return try #require(twilio.latestCode(to: phone))
    }

    @Test("code → tokens that RiderAPI uses → refresh → the spent refresh token refused, which ends the session")
    func signInRefresh() async throws {
        let phone = "+37799001122"
        try await Self.withRider(phone: phone) { signIn, twilio, server, invited in
            let code = try await Self.code(signIn, twilio, phone: phone)
            await #expect(throws: RiderAPIError.self) { try await signIn.signIn(phone: phone, code: "000000") }
            let tokens = try await signIn.signIn(phone: phone, code: code)
            #expect(tokens.role == "rider")
            #expect(tokens.subject == invited["riderId"] as? String)

            let rider = RiderAPI(baseURL: "http://127.0.0.1:\(server.port)", token: { tokens.accessToken })
            #expect(try await rider.me().riderId == tokens.subject)

            let renewed = try await signIn.refresh(tokens.refreshToken)
            #expect(renewed.refreshToken != tokens.refreshToken)
            #expect(renewed.sessionId == tokens.sessionId)
            // A refresh token is spent once; using it again ends the session, as a stolen copy would.
            await #expect(throws: RiderAPIError.self) { try await signIn.refresh(tokens.refreshToken) }
            await #expect(throws: RiderAPIError.self) { try await signIn.refresh(renewed.refreshToken) }
        }
    }

    @Test("logout ends the session: its refresh token is refused afterwards")
    func logout() async throws {
        let phone = "+37799001133"
        try await Self.withRider(phone: phone) { signIn, twilio, _, _ in
            let tokens = try await signIn.signIn(phone: phone, code: try await Self.code(signIn, twilio, phone: phone))
            try await signIn.logout(accessToken: tokens.accessToken)
            await #expect(throws: RiderAPIError.self) { try await signIn.refresh(tokens.refreshToken) }
        }
    }
}
