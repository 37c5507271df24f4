import Foundation
import NIOSSL
import Synchronization

/// The certificate and key the server presents, from two PEM files. `reload()` reads them again so a renewed
/// certificate (certbot, an ACME client) takes effect without a restart: connections opened afterwards get it,
/// open ones keep the one they shook hands with. A reload that fails leaves the previous certificate in use.
final class TLSIdentity: Sendable {
    let certificateFile: String
    let keyFile: String
    private let current: Mutex<Loaded>

    private struct Loaded: Sendable {
        let context: NIOSSLContext
        let description: String
    }

    /// Both files or neither: a certificate without its key (or the reverse) is a mistake, not "TLS off".
    static func configured(_ configuration: ServerConfiguration) throws -> TLSIdentity? {
        switch (configuration.tlsCertificateFile, configuration.tlsKeyFile) {
        case (nil, nil): return nil
        case (let certificate?, let key?): return try TLSIdentity(certificateFile: certificate, keyFile: key)
        default:
            throw ConfigurationError(
                "--tls-cert and --tls-key (LOGISTICS_TLS_CERT, LOGISTICS_TLS_KEY) must be given together")
        }
    }

    init(certificateFile: String, keyFile: String) throws {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        current = Mutex(try Self.load(certificateFile: certificateFile, keyFile: keyFile))
    }

    /// The context for a connection being accepted now.
    var context: NIOSSLContext { current.withLock { $0.context } }

    /// The certificate in use: subject, serial and expiry, for the logs.
    var description: String { current.withLock { $0.description } }

    /// Reads both files again and uses them for new connections; throws a `ConfigurationError` (and changes
    /// nothing) when they are missing, unreadable or do not belong together.
    func reload() throws {
        let loaded = try Self.load(certificateFile: certificateFile, keyFile: keyFile)
        current.withLock { $0 = loaded }
    }

    private static func load(certificateFile: String, keyFile: String) throws -> Loaded {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(try read(certificateFile, what: "certificate"))
        } catch let error as ConfigurationError {
            throw error
        } catch {
            chain = []
        }
        guard let leaf = chain.first else {
            throw ConfigurationError("TLS certificate \(certificateFile) holds no PEM certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: try read(keyFile, what: "key"), format: .pem)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("TLS key \(keyFile) holds no unencrypted PEM private key")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        do {
            // BoringSSL checks here that the key is the certificate's: a mismatch fails now, not at each handshake.
            let context = try NIOSSLContext(configuration: configuration)
            return Loaded(context: context, description: describe(leaf))
        } catch {
            throw ConfigurationError("TLS key \(keyFile) does not match the certificate in \(certificateFile)")
        }
    }

    private static func read(_ path: String, what: String) throws -> [UInt8] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ConfigurationError("TLS \(what) \(path) does not exist")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("TLS \(what) \(path) cannot be read")
        }
        return Array(data)
    }

    private static func describe(_ certificate: NIOSSLCertificate) -> String {
        let serial = certificate.serialNumber.map { String(format: "%02x", $0) }.joined()
        let expiry = Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter))
        let commonName = certificate.subjectName.last { $0.type == .commonName }?.value ?? "(none)"
        return "CN=\(commonName), serial \(serial), expires \(ISO8601DateFormatter().string(from: expiry))"
    }
}
