import Foundation
import Logging
import LogisticsCore
import RoadRouting

/// Everything the server needs to start, resolved from flags, environment and defaults.
public struct ServerConfiguration: Sendable {
    public enum Environment: String, Sendable {
        case development
        case production
    }

    public var host: String = "127.0.0.1"
    public var port: Int = 8080
    public var dataDirectory: String = "./logistics-data"
    public var environment: Environment = .development
    /// Development mode on an address other than loopback: refused unless asked for, since development allows
    /// webhooks into private networks and signs in with a generated secret.
    public var developmentOnNetwork = false
    /// Where people reach this server (`LOGISTICS_PUBLIC_URL`, scheme and host, no path): tracking links handed to
    /// customers are absolute on it. Without it, the address the server listens on.
    public var publicURL: String?
    /// PEM certificate chain and private key: the server speaks HTTPS and WSS itself (read again on SIGHUP).
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    /// Proxies (nginx, a load balancer) whose `X-Forwarded-For` names the client for rate limits.
    public var trustedProxies: [String] = []
    /// Where photos are kept; `<data-dir>/blobs` by default.
    public var blobDirectoryOverride: String?
    /// Raster tiles for the web pages' maps instead of the server's own road tiles.
    public var tileServer: RasterTileServer?
    /// Set by `logistics demo` only: the rider app offers "Simulate my drive", for desktop browsers without GPS.
    public var riderAppDemo: Bool = false
    /// nil: JSON in production, text in development (`effectiveLogFormat`).
    public var logFormat: LogFormat?
    public var logLevel: Logger.Level = .info
    /// `LOGISTICS_FAULT_CRASH_AFTER_COMMIT`: the crash test's fault switch; never on in service.
    public var crashAfterCommit: Bool = false

    // Each feature's own settings, with the environment variables that set them declared beside them.
    public var database = DatabaseSettings()
    public var tokens = TokenSettings()
    public var signIn = SignInSettings()
    public var delivery = DeliverySettings()
    public var dispatch = DispatchSettings()
    public var routing = RoutingSettings()
    public var tracking = TrackingSettings()
    public var notifications = NotificationSettings()
    public var textMessages = TextMessageSettings()
    public var customerMessages = CustomerMessageSettings()
    public var retention = RetentionSettings()
    /// Requests per client address, per caller, and fixes per rider; each instance counts its own.
    public var rateLimits = RateLimits()
    /// Header, body and idle timeouts and the cap on connections per address.
    public var connectionLimits = ConnectionLimits()

    public init() {}

    public var sqlitePath: String { (dataDirectory as NSString).appendingPathComponent("logistics.sqlite") }
    public var blobDirectory: String {
        blobDirectoryOverride ?? (dataDirectory as NSString).appendingPathComponent("blobs")
    }
    public var mapCacheDirectory: String {
        routing.mapCacheDirectoryOverride ?? (dataDirectory as NSString).appendingPathComponent("maps")
    }
    public var jwtSecretFile: String { (dataDirectory as NSString).appendingPathComponent("jwt-secret") }

    /// The address tracking links are made on: the configured public URL, else the address the caller reached this
    /// server by (its `Host`, when it is a plain host and port), else where the server listens.
    public func linkBaseURL(requestAuthority: String?) -> String {
        publicAddress.base(requestAuthority: requestAuthority)
    }

    var publicAddress: PublicAddress {
        PublicAddress(publicURL: publicURL, tls: tlsCertificateFile != nil, host: host, port: port)
    }
}

extension ServerConfiguration {
    /// Whether `host` reaches this machine only.
    static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name == "::1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Refuses development mode on the network unless asked for.
    func checkListenAddress() throws {
        guard environment == .development, !developmentOnNetwork, !Self.isLoopback(host) else { return }
        throw ConfigurationError(
            "development mode listens on loopback only (it allows webhooks into private networks and may sign with a "
                + "generated secret): \(host) is not loopback. Set LOGISTICS_ENV=production, or "
                + "LOGISTICS_DEVELOPMENT_ON_NETWORK=on (--development-on-network) to show it to your network anyway")
    }
}

public struct ConfigurationError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
