import Foundation
import HTTPTypes
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// The binary speaking HTTPS and WSS itself (`--tls-cert`, `--tls-key`): HSTS on every response, the renewed
/// certificate taken on SIGHUP, readable refusals of bad files; the slow-client guard inside TLS.
@Suite("TLS in the binary", .serialized, .timeLimit(.minutes(3)))
struct TLSTests {
    static let hsts = HTTPField.Name("Strict-Transport-Security")!

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("logistics-tls-\(UUID())")
    }

    @Test("HTTPS and WSS with HSTS; after SIGHUP new connections get the renewed certificate, open sockets stay")
    func servesAndReloads() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await TestCertificate.make(in: directory, name: "first", serial: "1001")
        let renewed = try await TestCertificate.make(in: directory, name: "renewed", serial: "2002")
        let certificate = directory.appendingPathComponent("server.crt").path
        let key = directory.appendingPathComponent("server.key").path
        try first.install(certificate: certificate, key: key)
        let server = try ServerProcess(
            arguments: [
                "serve", "--port", "0", "--data-dir", directory.appendingPathComponent("data").path, "--tls-cert",
                certificate, "--tls-key", key,
            ],
            environment: ["LOGISTICS_JWT_SECRET": ProcessTests.secret], captureStandardError: true)
        try await server.start()
        // A failed expectation that throws must not leave the server running after the test.
        defer { if server.process.isRunning { server.kill(SIGKILL) } }
        let port = server.port

        for (path, status) in [("/health/live", 200), ("/api/v1/orders", 401), ("/no/such/page", 404)] {
            let reply = try await ConcurrentClient.send(port: port, .get, path, tls: try first.https())
            #expect(reply.status == status, "\(path)")
            #expect(reply.headers[Self.hsts] == "max-age=31536000", "\(path)")
        }
        let dispatcher = try await ProcessTests.dispatcherToken()
        let socket = TrackingFollower(
            port: port, path: DispatchStreamSocket.path, token: dispatcher, tls: try first.trusted())
        try await socket.wait { $0.contains { $0["type"] as? String == "ready" } }
        #expect(try await PeerCertificate.serial(port: port) == first.serial)

        try renewed.install(certificate: certificate, key: key)
        server.kill(SIGHUP)
        let deadline = ContinuousClock.now + .seconds(10)
        var presented = first.serial
        while presented != renewed.serial && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            presented = try await PeerCertificate.serial(port: port)
        }
        #expect(presented == renewed.serial, "new connections still get the first certificate")

        // The socket opened before the reload still carries the fleet's traffic, sent by a client that trusts
        // only the renewed certificate.
        let rider = try await AccessTokenIssuer(secret: ProcessTests.secret).token(subject: UUID(), role: .rider)
        let fix: [String: Any] = [
            "lat": 43.738, "lon": 7.4262, "accuracyM": 5, "recordedAt": RFC3339.string(from: Date()),
        ]
        let posted = try await ConcurrentClient.send(
            port: port, .post, "/api/v1/rider/locations", token: rider,
            jsonBody: try JSONSerialization.data(withJSONObject: ["fixes": [fix]]), tls: try renewed.https())
        #expect(posted.status == 202)
        try await socket.wait { $0.contains { $0["type"] as? String == "riderLocation" } }

        // A botched renewal (the old key beside the new certificate) is refused and the renewed one kept.
        try? FileManager.default.removeItem(atPath: key)
        try FileManager.default.copyItem(atPath: first.keyFile, toPath: key)
        server.kill(SIGHUP)
        try await Task.sleep(for: .seconds(1))
        #expect(try await PeerCertificate.serial(port: port) == renewed.serial)
        let after = try await ConcurrentClient.send(port: port, .get, "/health/live", tls: try renewed.https())
        #expect(after.status == 200)

        server.kill(SIGTERM)
        #expect(await server.waitForExit() == 0)
        let log = await server.standardErrorText()
        #expect(log.contains("TLS certificate reloaded"), "\(log)")
        #expect(log.contains("TLS certificate not reloaded, still using the previous one"), "\(log)")
        #expect(log.contains("does not match the certificate"), "\(log)")
    }

    @Test("a missing file, a non-PEM certificate or key, another certificate's key, a lone flag: one line, exit 1")
    func refusesBadFiles() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = try await TestCertificate.make(in: directory, name: "good", serial: "3003")
        let other = try await TestCertificate.make(in: directory, name: "other", serial: "4004")
        let garbage = directory.appendingPathComponent("garbage.pem").path
        try "not a certificate\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        let absent = directory.appendingPathComponent("absent.crt").path
        let data = directory.appendingPathComponent("data").path
        let cases: [(flags: [String], environment: [String: String], message: String)] = [
            (["--tls-cert", absent, "--tls-key", good.keyFile], [:], "TLS certificate \(absent) does not exist"),
            (["--tls-cert", garbage, "--tls-key", good.keyFile], [:], "holds no PEM certificate"),
            (["--tls-cert", good.certificateFile, "--tls-key", garbage], [:], "holds no unencrypted PEM private key"),
            (["--tls-cert", good.certificateFile, "--tls-key", other.keyFile], [:], "does not match the certificate"),
            (["--tls-cert", good.certificateFile], [:], "must be given together"),
            ([], ["LOGISTICS_TLS_CERT": good.certificateFile, "LOGISTICS_TLS_KEY": other.keyFile], "does not match"),
        ]
        for (flags, environment, message) in cases {
            let process = try ServerProcess(
                arguments: ["serve", "--port", "0", "--data-dir", data] + flags,
                environment: environment.merging(["LOGISTICS_JWT_SECRET": ProcessTests.secret]) { $1 },
                captureStandardError: true)
            let run = try await process.runToEnd(timeout: .seconds(30))
            #expect(run.status == 1, "\(flags) \(environment)")
            let lines = await process.standardErrorText().split(separator: "\n")
            #expect(lines.count == 1, "one line, no stack trace: \(lines)")
            #expect(lines.first?.hasPrefix("error: cannot start: ") == true, "\(lines)")
            #expect(lines.first?.contains(message) == true, "\(lines)")
        }
    }

    @Test("without TLS, no HSTS")
    func noHSTSWithoutTLS() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            let reply = try await server.send(.get, "/health/live")
            #expect(reply.status == 200)
            #expect(reply.headers[Self.hsts] == nil)
        }
    }

    @Test("inside TLS the guard reads plain HTTP: a wss socket outlives the idle time, a silent handshake is cut")
    func guardInsideTLS() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = try await TestCertificate.make(in: directory, name: "guard", serial: "5005")
        let configure: (inout ServerConfiguration) -> Void = {
            $0.tlsCertificateFile = certificate.certificateFile
            $0.tlsKeyFile = certificate.keyFile
            // Only the idle time is short, as in SlowClientTests' socket test: the POST below may take longer than
            // the other shortened limits on a loaded machine.
            $0.connectionLimits.idleSeconds = 3
        }
        try await TestServer.run(.sqlite, mode: .live, configure: configure) { server in
            let dispatcher = try await server.token(.dispatcher)
            let socket = TrackingFollower(
                port: server.port, path: DispatchStreamSocket.path, token: dispatcher, tls: try certificate.trusted())
            try await socket.wait { $0.contains { $0["type"] as? String == "ready" } }
            let silent = try RawSocket(port: server.port)
            let started = ContinuousClock.now
            #expect(await silent.read(within: .seconds(8)).closed, "a silent connection is kept open")
            #expect(ContinuousClock.now - started < .seconds(5))
            try await Task.sleep(until: started + .seconds(5))

            let rider = try await server.token(.rider)
            let fix: [String: Any] = [
                "lat": 43.738, "lon": 7.4262, "accuracyM": 5, "recordedAt": RFC3339.string(from: server.clock.now()),
            ]
            let posted = try await ConcurrentClient.send(
                port: server.port, .post, "/api/v1/rider/locations", token: rider,
                jsonBody: try JSONSerialization.data(withJSONObject: ["fixes": [fix]]), tls: try certificate.https())
            #expect(posted.status == 202)
            #expect(posted.headers[Self.hsts] == "max-age=31536000")
            try await socket.wait { $0.contains { $0["type"] as? String == "riderLocation" } }
        }
    }
}
