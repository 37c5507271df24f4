import Foundation
import JWTKit

/// The keys that verify access tokens, each bound to one algorithm when it is loaded. jwt-kit builds a verifier
/// from the token's own header for a JWK that names no `alg`, and keeps it; so a forged header could swap a
/// key's algorithm for everyone. Here no key is loaded without its algorithm, and a token's header must name it.
struct TokenKeys: Sendable {
    let collection: JWTKeyCollection
    /// A JWKS key's algorithm by its `kid`.
    private let algorithmByKeyID: [String: String]
    /// The algorithm of a token without a `kid` (a single secret or PEM key: any token; a JWKS: its first key).
    private let defaultAlgorithm: String?
    /// Whether a `kid` the server does not know falls back to the one key (a secret or PEM file names none).
    private let singleKey: Bool

    /// Algorithms a JWKS key may be fixed to: asymmetric ones only (a symmetric key in a published set would be
    /// a shared secret made public).
    static let publicKeyAlgorithms: Set<String> = [
        "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
    ]

    /// The algorithm a token with this header must be signed with, or nil when no key may verify it.
    func expectedAlgorithm(for header: TokenHeader) -> String? {
        if let keyID = header.keyID, !singleKey { return algorithmByKeyID[keyID] }
        return defaultAlgorithm
    }

    static func secret(_ secret: String) async -> TokenKeys {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return TokenKeys(collection: keys, algorithmByKeyID: [:], defaultAlgorithm: "HS256", singleKey: true)
    }

    /// A PEM public key (RSA: RS256, or PS256 when configured; P-256: ES256) or a JWKS file.
    static func file(_ file: String, configuredAlgorithm: String?) async throws -> TokenKeys {
        let text: String
        do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw ConfigurationError("cannot read the JWT public key file \(file)")
        }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") {
            return try await jwks(text, file: file, configuredAlgorithm: configuredAlgorithm)
        }
        let keys = JWTKeyCollection()
        let algorithm: String
        if let rsa = try? Insecure.RSA.PublicKey(pem: text) {
            switch configuredAlgorithm ?? "RS256" {
            case "RS256": await keys.add(rsa: rsa, digestAlgorithm: .sha256)
            case "PS256": await keys.add(pss: rsa, digestAlgorithm: .sha256)
            case let other:
                throw ConfigurationError("LOGISTICS_JWT_ALGORITHM \(other) does not fit the RSA key in \(file)")
            }
            algorithm = configuredAlgorithm ?? "RS256"
        } else if let ecdsa = try? ES256PublicKey(pem: text) {
            guard configuredAlgorithm == nil || configuredAlgorithm == "ES256" else {
                throw ConfigurationError(
                    "LOGISTICS_JWT_ALGORITHM \(configuredAlgorithm!) does not fit the P-256 key in \(file)")
            }
            await keys.add(ecdsa: ecdsa)
            algorithm = "ES256"
        } else {
            throw ConfigurationError("\(file) holds neither a JWKS, an RSA public key nor a P-256 public key")
        }
        return TokenKeys(collection: keys, algorithmByKeyID: [:], defaultAlgorithm: algorithm, singleKey: true)
    }

    private static func jwks(_ text: String, file: String, configuredAlgorithm: String?) async throws -> TokenKeys {
        let set: JWKS
        do { set = try JSONDecoder().decode(JWKS.self, from: Data(text.utf8)) } catch {
            throw ConfigurationError("\(file) is not a JWKS document: \(error)")
        }
        guard !set.keys.isEmpty else { throw ConfigurationError("\(file) holds no keys") }
        let keys = JWTKeyCollection()
        var algorithms: [String: String] = [:]
        var first: String?
        for var jwk in set.keys {
            guard let keyID = jwk.keyIdentifier?.string else {
                throw ConfigurationError("a key in \(file) has no kid: every key of a JWKS needs one")
            }
            guard let name = jwk.algorithm?.rawValue ?? configuredAlgorithm else {
                throw ConfigurationError(
                    "key \(keyID) in \(file) names no alg: add one to the key, or set LOGISTICS_JWT_ALGORITHM")
            }
            guard publicKeyAlgorithms.contains(name), let algorithm = JWK.Algorithm(rawValue: name) else {
                throw ConfigurationError("key \(keyID) in \(file): algorithm \(name) is not accepted")
            }
            guard algorithms[keyID] == nil else { throw ConfigurationError("\(file) holds kid \(keyID) twice") }
            jwk.algorithm = algorithm
            do {
                try await keys.add(jwk: jwk)
                // A key jwt-kit could not bind to its algorithm at load would be bound by the first token's header.
                _ = try await keys.getKey(for: JWKIdentifier(string: keyID), alg: nil)
            } catch {
                throw ConfigurationError("key \(keyID) in \(file) cannot be used with \(name): \(error)")
            }
            algorithms[keyID] = name
            if first == nil { first = name }
        }
        return TokenKeys(collection: keys, algorithmByKeyID: algorithms, defaultAlgorithm: first, singleKey: false)
    }
}
