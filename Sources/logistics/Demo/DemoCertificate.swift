import Crypto
import Foundation
import SwiftASN1
import X509

/// The demo's own TLS certificate, so a phone on the same network gets GPS (browsers give a position to HTTPS pages
/// only). Self-signed: each phone warns once, and the console says how to go on. Kept in the data directory and
/// made again when it is about to expire or does not name the address the links use.
struct DemoCertificate {
    let certificatePath: String
    let keyPath: String
    /// SHA-256 of the certificate, as browsers show it under "Certificate details".
    let fingerprint: String
    let pem: String

    static func prepare(in directory: String, naming host: String) throws -> DemoCertificate {
        let folder = URL(fileURLWithPath: directory).appendingPathComponent("demo-tls")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificatePath = folder.appendingPathComponent("certificate.pem").path
        let keyPath = folder.appendingPathComponent("key.pem").path
        let names = Self.names(for: host)
        if let pem = try? String(contentsOfFile: certificatePath, encoding: .utf8),
            FileManager.default.fileExists(atPath: keyPath),
            let existing = try? Certificate(pemEncoded: pem),
            existing.notValidAfter > Date().addingTimeInterval(7 * 86_400),
            let covered = try? existing.extensions.subjectAlternativeNames, Set(covered) == Set(names)
        {
            return DemoCertificate(
                certificatePath: certificatePath, keyPath: keyPath, fingerprint: try Self.fingerprint(existing),
                pem: pem)
        }
        let key = P256.Signing.PrivateKey()
        let signingKey = Certificate.PrivateKey(key)
        let name = try DistinguishedName {
            OrganizationName("Rider Logistics demo")
            CommonName(host)
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: signingKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                // Its own issuer: BoringSSL (the demo's own clients) takes a self-signed certificate as a trust anchor
                // only when it may sign certificates.
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: signingKey)
        let pem = try certificate.serializeAsPEM().pemString
        FileManager.default.createFile(atPath: certificatePath, contents: Data(pem.utf8))
        // The key is a secret: the owner's only.
        FileManager.default.createFile(
            atPath: keyPath, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        return DemoCertificate(
            certificatePath: certificatePath, keyPath: keyPath, fingerprint: try Self.fingerprint(certificate), pem: pem
        )
    }

    /// localhost, the loopback addresses and the address the printed links use.
    static func names(for host: String) -> [GeneralName] {
        var names: [GeneralName] = [.dnsName("localhost")]
        for address in ["127.0.0.1", "::1", host] {
            if let bytes = Self.addressBytes(address) {
                let name = GeneralName.ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes)))
                if !names.contains(name) { names.append(name) }
            } else if address != "localhost", !names.contains(.dnsName(address)) {
                names.append(.dnsName(address))
            }
        }
        return names
    }

    private static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func fingerprint(_ certificate: Certificate) throws -> String {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return SHA256.hash(data: serializer.serializedBytes).map { String(format: "%02X", $0) }.joined(separator: ":")
    }
}
