import Foundation
import Logging

/// Finds the HS256 secret: configured, or (development only) generated once into the data directory.
public enum JWTSecret {
    public static let minimumProductionBytes = 32

    public static func resolve(_ configuration: ServerConfiguration, logger: Logger) throws -> String {
        if let secret = configuration.tokens.jwtSecret {
            if configuration.environment == .production && secret.utf8.count < minimumProductionBytes {
                throw ConfigurationError(
                    "LOGISTICS_JWT_SECRET must be at least \(minimumProductionBytes) bytes in production")
            }
            return secret
        }
        guard configuration.environment == .development else {
            throw ConfigurationError("LOGISTICS_JWT_SECRET is required in production (at least 32 bytes)")
        }
        let path = configuration.jwtSecretFile
        if let existing = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines),
            !existing.isEmpty
        {
            return existing
        }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        try FileManager.default.createDirectory(
            atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600])
        else { throw ConfigurationError("cannot write the development JWT secret to \(path)") }
        logger.warning(
            "no LOGISTICS_JWT_SECRET set: generated a development secret", metadata: ["file": "\(path)"])
        return secret
    }
}
