import Foundation
import HummingbirdTesting
import NIOSSL

/// A self-signed certificate for localhost and 127.0.0.1, valid one day, made by `openssl` for one test; each has
/// its own key and the serial it was asked for, so a test can tell which one a server presents.
struct TestCertificate: Sendable {
    let certificateFile: String
    let keyFile: String
    /// Lower-case hex, as `PeerCertificate.serial` reports it.
    let serial: String

    static func make(in directory: URL, name: String, serial: String) async throws -> TestCertificate {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("\(name).crt").path
        let key = directory.appendingPathComponent("\(name).key").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost/O=\(name)", "-days",
            "1", "-set_serial", "0x\(serial)", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key,
            "-out", certificate,
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        let deadline = ContinuousClock.now + .seconds(30)
        while openssl.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if openssl.isRunning { openssl.terminate() }
        guard !openssl.isRunning, openssl.terminationStatus == 0 else {
            throw ProcessError("openssl could not make a test certificate")
        }
        return TestCertificate(certificateFile: certificate, keyFile: key, serial: serial)
    }

    /// Puts this certificate and key where a server reads its own (what a renewal does).
    func install(certificate: String, key: String) throws {
        for (source, target) in [(certificateFile, certificate), (keyFile, key)] {
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: source, toPath: target)
        }
    }

    /// A client configuration that trusts this certificate and nothing else.
    func trusted() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificateFile))
        return configuration
    }

    /// A test client's configuration for HTTPS to 127.0.0.1 (named localhost), trusting only this certificate.
    func https() throws -> TestClient.Configuration {
        TestClient.Configuration(tlsConfiguration: try trusted(), serverName: "localhost")
    }
}
