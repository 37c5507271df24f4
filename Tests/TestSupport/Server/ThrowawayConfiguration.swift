import Foundation
import LogisticsServer

extension ServerConfiguration {
    /// A server for one test or benchmark run: a free port, a data directory of its own and a fresh secret.
    public static func throwaway(directory: URL) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory.path
        configuration.tokens.jwtSecret = UUID().uuidString + UUID().uuidString
        return configuration
    }
}
