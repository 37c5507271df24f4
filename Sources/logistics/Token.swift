import ArgumentParser
import Foundation
import Logging
import LogisticsCore
import LogisticsServer

struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a signed development token, with the same secret the server uses.")

    @Option(help: "rider, customer, dispatcher, admin or vendor.") var role: String
    @Option(help: "The subject: the rider, customer or user id (a UUID).") var sub: String
    @Option(help: "Display name carried in the token.") var name: String?
    @Option(help: "Lifetime such as 30m, 1h or 7d.") var ttl: String = "1h"
    @Option(name: .customLong("data-dir"), help: "Data directory holding the development secret.") var dataDirectory:
        String?

    func run() async throws {
        guard let role = Role(rawValue: role) else {
            throw ValidationError("--role must be one of \(Role.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let subject = UUID(uuidString: sub) else { throw ValidationError("--sub must be a UUID") }
        guard let seconds = Self.seconds(ttl) else { throw ValidationError("--ttl must look like 90s, 30m, 1h or 7d") }
        var configuration = try ServerConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        var logger = Logger(label: "rider-logistics.token")
        logger.logLevel = .error
        let secret = try JWTSecret.resolve(configuration, logger: logger)
        let issuer = await AccessTokenIssuer(
            secret: secret, issuer: configuration.tokens.issuer, audience: configuration.tokens.audience)
        print(try await issuer.token(subject: subject, role: role, name: name, ttl: seconds))
    }

    static func seconds(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let value = Double(text.dropLast()), value > 0 else { return Double(text) }
        switch unit {
        case "s": return value
        case "m": return value * 60
        case "h": return value * 3600
        case "d": return value * 86_400
        default: return nil
        }
    }
}
