import ArgumentParser
import Foundation
import Hummingbird
import Logging
import LogisticsServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP server.")

    @OptionGroup var options: ServerOptions
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain: serve HTTPS and WSS (LOGISTICS_TLS_CERT).")
    var tlsCertificate: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key of --tls-cert (LOGISTICS_TLS_KEY).")
    var tlsKey: String?
    @Flag(name: .customLong("no-migrate"), help: "Do not apply pending migrations at start.") var noMigrate = false

    func run() async throws {
        var configuration = try options.resolve()
        configuration.database.migrate = !noMigrate
        if let tlsCertificate { configuration.tlsCertificateFile = tlsCertificate }
        if let tlsKey { configuration.tlsKeyFile = tlsKey }
        try await ServerRunner.run(configuration)
    }
}

/// Starts the server and reports start-up failures as one readable line.
enum ServerRunner {
    static func run(
        _ configuration: ServerConfiguration,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let logger = ServerLogging.makeLogger(configuration)
        ConsoleOutput.configuration(configuration)
        let built: LogisticsApplication
        do {
            built = try await buildApplication(configuration, logger: logger) { port in
                let scheme = configuration.tlsCertificateFile == nil ? "http" : "https"
                Console.line("Rider Logistics listening on \(scheme)://\(configuration.host):\(port)")
                await onServerRunning(port)
            }
        } catch {
            throw Console.failure("cannot start: \(describe(error))")
        }
        try await built.application.runService()
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? ConfigurationError { return error.description }
        return String(describing: error)
    }
}

enum ConsoleOutput {
    static func configuration(_ configuration: ServerConfiguration) {
        Console.line("Rider Logistics configuration:")
        for (name, value) in configuration.summary {
            Console.line("  \(name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(value)")
        }
    }
}
