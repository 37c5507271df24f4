import Foundation
import LogisticsCore
import LogisticsServer
import LogisticsStore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Sign-in by phone end to end, with SMS through a local Twilio fake that checks every request as Twilio would.
@Suite("Sign-in by phone and code", .timeLimit(.minutes(5)))
struct SignInTests {
    /// An admin adds a rider; the rider signs in with the code Twilio carried.
    struct Invited {
        var phone: String
        var riderId: String
    }

    static func invite(_ server: TestServer, _ twilio: FakeTwilio, phone: String, name: String = "Asha Rao")
        async throws -> Invited
    {
        let admin = try await server.token(.admin)
        let created = try await server.send(
            .post, "/api/v1/riders", token: admin, json: ["name": name, "phone": phone, "vehicle": "MOTORCYCLE"])
        #expect(created.status == 201, "\(created.text)")
        return Invited(phone: phone, riderId: try #require(created["riderId"] as? String))
    }

    /// Asks for a code and returns it as the phone received it.
    static func code(_ server: TestServer, _ twilio: FakeTwilio, phone: String) async throws -> String {
        @Sendable func codes(_ state: FakeTwilio.State) -> Int {
            state.messages.filter { $0.to == phone && $0.body.contains("sign-in code") }.count
        }
        let before = codes(twilio.snapshot)
        let asked = try await server.send(.post, "/api/v1/auth/code", json: ["phone": phone])
        #expect(asked.status == 202, "\(asked.text)")
        try await twilio.wait("the code to \(phone)") { codes($0) > before }
        return try #require(twilio.latestCode(to: phone))
    }

    static func signIn(_ server: TestServer, _ twilio: FakeTwilio, phone: String) async throws -> Reply {
        let code = try await code(server, twilio, phone: phone)
        return try await server.send(.post, "/api/v1/auth/token", json: ["phone": phone, "code": code])
    }

    static func withTwilio(
        _ kind: StoreKind, mode: TestServer.Mode = .router,
        configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (FakeTwilio, TestServer) async throws -> Void
    ) async throws {
        let twilio = try FakeTwilio()
        try await twilio.run { port in
            let settings = try twilio.settings(port: port)
            try await TestServer.run(
                kind, mode: mode,
                configure: {
                    settings(&$0)
                    $0.rateLimits = .off
                    configure(&$0)
                }
            ) { server in
                try await body(twilio, server)
                #expect(twilio.snapshot.violations == [], "requests Twilio would refuse")
            }
        }
    }

    @Test(
        "invite → code → token → refresh → a reused refresh token ends the session → logout",
        arguments: StoreKind.available)
    func wholeSignIn(kind: StoreKind) async throws {
        try await Self.withTwilio(kind) { twilio, server in
            let asha = try await Self.invite(server, twilio, phone: "+919820012345")
            try await twilio.wait("the invitation") { !$0.messages.isEmpty }
            let invitation = try #require(twilio.messages(to: asha.phone).first)
            #expect(invitation.body.contains("Asha Rao") && invitation.body.contains("/rider"), "\(invitation.body)")
            #expect(invitation.from == FakeTwilio.from)
            #expect(invitation.statusCallback == "https://deliveries.example.com/api/v1/providers/twilio/status")

            let code = try await Self.code(server, twilio, phone: asha.phone)
            #expect(twilio.latestCode(to: asha.phone) == code)
            #expect(twilio.messages(to: asha.phone).last?.body.hasSuffix("@deliveries.example.com #\(code)") == true)
            let wrong = code == "000000" ? "111111" : "000000"
            let refused = try await server.send(
                .post, "/api/v1/auth/token", json: ["phone": asha.phone, "code": wrong])
            #expect(
                refused.status == 400 && refused.code == "INVALID_CODE" && refused["attemptsRemaining"] as? Int == 4)
            let signedIn = try await server.send(
                .post, "/api/v1/auth/token", json: ["phone": asha.phone, "code": code])
            #expect(signedIn.status == 200, "\(signedIn.text)")
            #expect(signedIn["role"] as? String == "rider" && signedIn["subject"] as? String == asha.riderId)
            #expect(signedIn["expiresIn"] as? Int == 900)
            let access = try #require(signedIn["accessToken"] as? String)
            let refresh = try #require(signedIn["refreshToken"] as? String)
            // The code is spent: the same code again finds none.
            let again = try await server.send(.post, "/api/v1/auth/token", json: ["phone": asha.phone, "code": code])
            #expect(again.status == 400 && again.code == "INVALID_CODE")
            let me = try await server.send(.get, "/api/v1/rider/me", token: access)
            #expect(me.status == 200 && me["riderId"] as? String == asha.riderId, "\(me.text)")
            #expect(try await server.count("refresh_tokens", "token_hash = ?", [.text(refresh)]) == 0, "stored hashed")

            let rotated = try await server.send(.post, "/api/v1/auth/refresh", json: ["refreshToken": refresh])
            #expect(rotated.status == 200, "\(rotated.text)")
            let newRefresh = try #require(rotated["refreshToken"] as? String)
            let newAccess = try #require(rotated["accessToken"] as? String)
            #expect(newRefresh != refresh)
            #expect(try await server.send(.get, "/api/v1/rider/me", token: newAccess).status == 200)

            // The spent token again: someone has a copy, so the whole session ends, the new token with it.
            let reused = try await server.send(.post, "/api/v1/auth/refresh", json: ["refreshToken": refresh])
            #expect(reused.status == 401 && reused.code == "UNAUTHENTICATED")
            let afterReuse = try await server.send(.post, "/api/v1/auth/refresh", json: ["refreshToken": newRefresh])
            // The page that held the newer token says why it is signed out.
            #expect(afterReuse.status == 401 && afterReuse.text.contains("used from two places"), "\(afterReuse.text)")
            // Its access tokens stop within 30 s (another instance's check is at most 25 s old).
            server.clock.advance(by: 26)
            #expect(try await server.send(.get, "/api/v1/rider/me", token: newAccess).status == 401)

            // A new sign-in, then logout: its tokens stop at once here.
            let second = try await Self.signIn(server, twilio, phone: asha.phone)
            let secondAccess = try #require(second["accessToken"] as? String)
            #expect(try await server.send(.get, "/api/v1/rider/me", token: secondAccess).status == 200)
            #expect(try await server.send(.post, "/api/v1/auth/logout", token: secondAccess).status == 204)
            #expect(try await server.send(.get, "/api/v1/rider/me", token: secondAccess).status == 401)
            let afterLogout = try await server.send(
                .post, "/api/v1/auth/refresh", json: ["refreshToken": second["refreshToken"] as? String ?? ""])
            #expect(afterLogout.status == 401 && afterLogout.text.contains("signed out"), "\(afterLogout.text)")

            // Suspended while signed in: the next renewal says so (the suspension ended the session first).
            let third = try await Self.signIn(server, twilio, phone: asha.phone)
            #expect(
                try await server.send(
                    .post, "/api/v1/riders/\(asha.riderId)/suspend", token: try await server.token(.admin)
                ).status == 200)
            let afterSuspension = try await server.send(
                .post, "/api/v1/auth/refresh", json: ["refreshToken": third["refreshToken"] as? String ?? ""])
            #expect(
                afterSuspension.status == 401 && afterSuspension.text.contains("suspended"), "\(afterSuspension.text)")

            // The admin sees both sessions, ended, with why.
            let admin = try await server.token(.admin)
            let sessions = try await server.send(.get, "/api/v1/people/\(asha.riderId)/sessions", token: admin)
            let reasons = (sessions["sessions"] as? [[String: Any]] ?? []).compactMap { $0["revokedReason"] as? String }
            #expect(Set(reasons) == ["a refresh token was used twice", "signed out", "suspended"], "\(sessions.text)")
            // Nothing secret reached the database's outbox after sending: the code messages are blanked.
            try await twilio.wait("every message sent") { $0.messages.count >= 3 }
            let erased = try await eventually {
                try await server.count("outbox", "topic = 'sms' AND body LIKE '%sign-in code%'") == 0 ? true : nil
            }
            #expect(erased == true, "sign-in codes left in the outbox")
        }
    }

    @Test("five wrong codes lock the code, even the right one then; a new code unlocks", arguments: StoreKind.available)
    func lockOut(kind: StoreKind) async throws {
        try await Self.withTwilio(kind) { twilio, server in
            let omar = try await Self.invite(server, twilio, phone: "+33612345678", name: "Omar Haddad")
            let code = try await Self.code(server, twilio, phone: omar.phone)
            let wrong = code == "123456" ? "654321" : "123456"
            var answers: [String] = []
            for _ in 0..<5 {
                let reply = try await server.send(
                    .post, "/api/v1/auth/token", json: ["phone": omar.phone, "code": wrong])
                answers.append("\(reply.status) \(reply.code ?? "") \(reply["attemptsRemaining"] as? Int ?? -1)")
            }
            #expect(
                answers == [
                    "400 INVALID_CODE 4", "400 INVALID_CODE 3", "400 INVALID_CODE 2", "400 INVALID_CODE 1",
                    "423 CODE_LOCKED -1",
                ])
            let right = try await server.send(.post, "/api/v1/auth/token", json: ["phone": omar.phone, "code": code])
            #expect(right.status == 423 && right.code == "CODE_LOCKED")
            #expect(try await server.count("sessions") == 0)
            let fresh = try await Self.signIn(server, twilio, phone: omar.phone)
            #expect(fresh.status == 200, "\(fresh.text)")
        }
    }

    @Test("twenty concurrent guesses at one code: at most five are compared, and the right one signs in once")
    func concurrentGuesses() async throws {
        try await Self.withTwilio(.sqlite) { twilio, server in
            let lena = try await Self.invite(server, twilio, phone: "+37799123456", name: "Lena Vogel")
            let code = try await Self.code(server, twilio, phone: lena.phone)
            let guesses = (0..<20).map { $0 == 7 ? code : String(format: "%06d", (Int(code)! + 1 + $0) % 1_000_000) }
            // Each answer with its attemptsRemaining (-1 when it has none).
            let answers = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for guess in guesses {
                    group.addTask {
                        let reply = try await server.send(
                            .post, "/api/v1/auth/token", json: ["phone": lena.phone, "code": guess])
                        return (reply.status, reply["attemptsRemaining"] as? Int ?? -1)
                    }
                }
                return try await group.reduce(into: [(Int, Int)]()) { $0.append($1) }
            }
            let signedIn = answers.filter { $0.0 == 200 }.count
            // A compared wrong guess spends one try and says how many are left: each count is said once at most (a
            // shared count would repeat one), and only four can be said before the fifth try locks the code. After
            // the right code or the lock, the rest find no live code (attemptsRemaining 0) or a locked one (423).
            let remaining = answers.filter { $0.0 == 400 && $0.1 > 0 }.map(\.1)
            #expect(Set(remaining).count == remaining.count && remaining.count <= 4, "\(answers)")
            #expect(answers.allSatisfy { [200, 400, 423].contains($0.0) }, "\(answers)")
            #expect(signedIn <= 1)
            #expect(try await server.count("sessions") == signedIn)
        }
    }

    @Test("an unknown phone gets the same 202, body and time as a person's, and no SMS", arguments: StoreKind.available)
    func noEnumeration(kind: StoreKind) async throws {
        // 24 requests from one address: beyond the default cap per address, which has its own test.
        try await Self.withTwilio(kind, configure: { $0.signIn.codeRequestsPerAddress = 100 }) { twilio, server in
            var known: [String] = []
            for index in 0..<12 {
                known.append(
                    try await Self.invite(server, twilio, phone: "+4420794600\(10 + index)", name: "Rider \(index)")
                        .phone)
            }
            try await twilio.wait("the invitations") { $0.messages.count == 12 }
            let unknown = (0..<12).map { "+4420794611\(10 + $0)" }
            var knownTimes: [Double] = []
            var unknownTimes: [Double] = []
            var bodies: Set<String> = []
            for (person, nobody) in zip(known, unknown) {
                for (phone, isKnown) in [(person, true), (nobody, false)] {
                    let started = ContinuousClock.now
                    let reply = try await server.send(.post, "/api/v1/auth/code", json: ["phone": phone])
                    let took = ContinuousClock.now - started
                    #expect(reply.status == 202)
                    bodies.insert(reply.text)
                    let ms = Double(took.components.attoseconds) / 1e15 + Double(took.components.seconds) * 1000
                    if isKnown { knownTimes.append(ms) } else { unknownTimes.append(ms) }
                }
            }
            #expect(bodies.count == 1, "\(bodies)")
            try await twilio.wait("the codes") { $0.messages.count == 24 }
            try await Task.sleep(for: .milliseconds(500))
            #expect(unknown.allSatisfy { twilio.messages(to: $0).isEmpty })
            let median = { (times: [Double]) in times.sorted()[times.count / 2] }
            let (a, b) = (median(knownTimes), median(unknownTimes))
            // The same band: medians within 5 ms or a factor of 2 of each other (the work differs by two writes).
            #expect(abs(a - b) < 5 || max(a, b) / min(a, b) < 2, "known \(a) ms, unknown \(b) ms")
        }
    }

    @Test("three codes per phone per 10 minutes, a cap per address; 429 with Retry-After and no SMS")
    func sendLimits() async throws {
        try await Self.withTwilio(.sqlite, configure: { $0.signIn.codeRequestsPerAddress = 6 }) { twilio, server in
            let marc = try await Self.invite(server, twilio, phone: "+37799223344", name: "Marc Dubois")
            try await twilio.wait("the invitation") { $0.messages.count == 1 }
            for _ in 0..<3 { _ = try await Self.code(server, twilio, phone: marc.phone) }
            let fourth = try await server.send(.post, "/api/v1/auth/code", json: ["phone": marc.phone])
            #expect(fourth.status == 429 && fourth.code == "RATE_LIMITED")
            let wait = Int(fourth.headers[.retryAfter] ?? "") ?? 0
            #expect((1...600).contains(wait), "Retry-After \(wait)")
            // The same for a phone nobody has: the limit does not tell them apart.
            for _ in 0..<2 {
                #expect(
                    try await server.send(.post, "/api/v1/auth/code", json: ["phone": "+37799000111"]).status == 202)
            }
            // Six requests from this address so far: the seventh, for any phone, is refused.
            let seventh = try await server.send(.post, "/api/v1/auth/code", json: ["phone": "+37799000222"])
            #expect(seventh.status == 429 && seventh.headers[.retryAfter] != nil)
            try await Task.sleep(for: .milliseconds(600))
            #expect(twilio.messages(to: marc.phone).count == 4, "the invitation and three codes")
            // Ten minutes on, the phone may ask again.
            server.clock.advance(by: 601)
        }
    }

    @Test(
        "bad input: phones, codes, another phone's code, an expired code, a suspended person, an admin's last session")
    func badInput() async throws {
        try await Self.withTwilio(.sqlite) { twilio, server in
            let ravi = try await Self.invite(server, twilio, phone: "+919820099999", name: "Ravi Iyer")
            let noor = try await Self.invite(server, twilio, phone: "+919820088888", name: "Noor Ali")
            for phone in ["9820012345", "+91 98200 12345", "+0123456789", "+1", "", "+12345678901234567"] {
                let reply = try await server.send(.post, "/api/v1/auth/code", json: ["phone": phone])
                #expect(reply.status == 400 && ValidationTests.fields(reply) == ["phone"], "\(phone)")
            }
            #expect(try await server.send(.post, "/api/v1/auth/code", json: ["phone": 919820012345]).status == 400)
            #expect(
                try await server.send(.post, "/api/v1/auth/code", raw: Data("{".utf8), contentType: "application/json")
                    .status == 400)
            let code = try await Self.code(server, twilio, phone: ravi.phone)
            for bad in ["12345", "1234567", "12a456", "１２３４５６"] {
                let reply = try await server.send(
                    .post, "/api/v1/auth/token", json: ["phone": ravi.phone, "code": bad])
                #expect(reply.status == 400 && ValidationTests.fields(reply) == ["code"], "\(bad)")
            }
            // Ravi's code for Noor's phone: Noor has no live code.
            let crossed = try await server.send(.post, "/api/v1/auth/token", json: ["phone": noor.phone, "code": code])
            #expect(crossed.status == 400 && crossed.code == "INVALID_CODE")
            server.clock.advance(by: 301)
            let expired = try await server.send(.post, "/api/v1/auth/token", json: ["phone": ravi.phone, "code": code])
            #expect(expired.status == 400 && expired.code == "INVALID_CODE")
            #expect(try await server.count("sessions") == 0)

            // A suspended rider gets a code (the answer must not differ) but no session: 403 saying why.
            let admin = try await server.token(.admin)
            #expect(try await server.send(.post, "/api/v1/riders/\(noor.riderId)/suspend", token: admin).status == 200)
            let suspended = try await Self.signIn(server, twilio, phone: noor.phone)
            #expect(suspended.status == 403 && suspended.text.contains("suspended"), "\(suspended.text)")
            #expect(try await server.count("sessions") == 0)

            // Refresh tokens that were never made here.
            for token in ["", "rft_short", "rft_" + String(repeating: "A", count: 43), "not-a-token"] {
                let reply = try await server.send(.post, "/api/v1/auth/refresh", json: ["refreshToken": token])
                #expect(reply.status == 401, "\(token)")
            }
            // A development token has no session to end.
            #expect(try await server.send(.post, "/api/v1/auth/logout", token: admin).status == 409)

            // An admin signed in by phone cannot revoke their own last session.
            let staff = try await server.send(
                .post, "/api/v1/staff", token: admin,
                json: ["name": "Ines Admin", "phone": "+33699887766", "role": "admin"])
            #expect(staff.status == 201, "\(staff.text)")
            let signedIn = try await Self.signIn(server, twilio, phone: "+33699887766")
            let own = try #require(signedIn["accessToken"] as? String)
            let sessionId = try #require(signedIn["sessionId"] as? String)
            let revokeOwn = try await server.send(.delete, "/api/v1/sessions/\(sessionId)", token: own)
            #expect(revokeOwn.status == 409, "\(revokeOwn.text)")
            #expect(try await server.send(.get, "/api/v1/people", token: own).status == 200)
        }
    }

    @Test("housekeeping forgets expired codes, old code requests and the refresh tokens of ended sessions")
    func housekeeping() async throws {
        try await Self.withTwilio(.sqlite) { twilio, server in
            let rider = try await Self.invite(server, twilio, phone: "+37799660011", name: "Kept Short")
            let signedIn = try await Self.signIn(server, twilio, phone: rider.phone)
            _ = try await Self.code(server, twilio, phone: rider.phone)
            #expect(
                try await server.send(.post, "/api/v1/auth/logout", token: signedIn["accessToken"] as? String).status
                    == 204)
            #expect(try await server.count("sign_in_codes") == 1)
            #expect(try await server.count("sign_in_requests") == 2)
            #expect(try await server.count("refresh_tokens") == 1)
            server.clock.advance(by: 601)
            let services = server.components
            await Housekeeping(
                repository: services.repository, blobs: services.blobs, clock: services.clock, logger: services.logger
            ).pruneOnce()
            #expect(try await server.count("sign_in_codes") == 0)
            #expect(try await server.count("sign_in_requests") == 0)
            #expect(try await server.count("refresh_tokens") == 0)
            #expect(try await server.count("sessions") == 1, "the session stays, ended, for the admin to read")
        }
    }
}
