import Foundation
import Logging
import LogisticsServer
import TestSupport

/// How the benchmarks run a server in this process: a free port, a throwaway data directory and secret, and no
/// rate or per-address limits, since the load comes from this machine's one address as many clients.
enum InProcessServer {
    static func configuration(directory: URL) -> ServerConfiguration {
        var configuration = ServerConfiguration.throwaway(directory: directory)
        configuration.rateLimits = .off
        configuration.connectionLimits.perAddress = nil
        return configuration
    }

    /// Stopping the server by cancellation makes it log; the figures are what matter here.
    static var logger: Logger {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        return logger
    }
}
