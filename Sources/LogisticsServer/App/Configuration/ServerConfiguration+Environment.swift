import Foundation
import Logging

extension ServerConfiguration {
    /// Applies `LOGISTICS_*`, `DATABASE_URL` and `LOG_LEVEL` over the defaults; flags are applied by the caller
    /// afterwards, so flags win.
    public static func fromEnvironment(_ environment: [String: String]) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        try Self.environmentSettings.apply(environment, to: &configuration)
        try configuration.textMessages.check()
        try configuration.customerMessages.check(textMessages: configuration.textMessages)
        return configuration
    }

    /// Every environment variable the server reads, in the order they are applied.
    static var environmentVariables: [String] { environmentSettings.map(\.name) }

    /// The server-wide variables, then each feature's own.
    static var environmentSettings: [EnvironmentSetting<ServerConfiguration>] {
        serverWide + DatabaseSettings.environment.map { $0.within(\.database) }
            + TokenSettings.environment.map { $0.within(\.tokens) }
            + DeliverySettings.environment.map { $0.within(\.delivery) }
            + RoutingSettings.environment.map { $0.within(\.routing) }
            + RetentionSettings.environment.map { $0.within(\.retention) }
            + NotificationSettings.environment.map { $0.within(\.notifications) }
            + TrackingSettings.environment.map { $0.within(\.tracking) }
            + RateLimits.environment.map { $0.within(\.rateLimits) }
            + ConnectionLimits.environment.map { $0.within(\.connectionLimits) }
            + DispatchSettings.environment.map { $0.within(\.dispatch) }
            + TextMessageSettings.environment.map { $0.within(\.textMessages) }
            + CustomerMessageSettings.environment.map { $0.within(\.customerMessages) }
            + SignInSettings.environment.map { $0.within(\.signIn) }
            + [logLevelSetting]
    }

    private static var serverWide: [EnvironmentSetting<ServerConfiguration>] {
        [
            .text("LOGISTICS_HOST", \.host, keepEmpty: true),
            .onOff("LOGISTICS_DEVELOPMENT_ON_NETWORK", \.developmentOnNetwork),
            .whole("LOGISTICS_PORT", \.port, in: 0...65535),
            .text("LOGISTICS_DATA_DIR", \.dataDirectory, keepEmpty: true),
            .choice("LOGISTICS_ENV", \.environment, saying: "development or production"),
            .text("LOGISTICS_BLOB_DIR", \.blobDirectoryOverride),
            .custom("LOGISTICS_TILE_URL") { $0.tileServer = try RasterTileServer(template: $1) },
            .custom("LOGISTICS_TRUSTED_PROXIES") { configuration, proxies in
                configuration.trustedProxies = proxies.split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
            },
            .custom("LOGISTICS_PUBLIC_URL") { $0.publicURL = try parsePublicURL($1) },
            EnvironmentSetting(name: "LOGISTICS_FAULT_CRASH_AFTER_COMMIT") { configuration, fault in
                configuration.crashAfterCommit = ["1", "on", "true"].contains(fault.lowercased())
            },
            .text("LOGISTICS_TLS_CERT", \.tlsCertificateFile),
            .text("LOGISTICS_TLS_KEY", \.tlsKeyFile),
            .custom("LOGISTICS_LOG_FORMAT") { configuration, format in
                guard let parsed = LogFormat(rawValue: format) else {
                    throw ConfigurationError("LOGISTICS_LOG_FORMAT must be text or json, not \(format)")
                }
                configuration.logFormat = parsed
            },
        ]
    }

    private static var logLevelSetting: EnvironmentSetting<ServerConfiguration> {
        .custom("LOG_LEVEL") { configuration, level in
            guard let parsed = Logger.Level(rawValue: level) else {
                throw ConfigurationError(
                    "LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical, not \(level)")
            }
            configuration.logLevel = parsed
        }
    }

    /// An http(s) address with a host and nothing after it, kept without a trailing slash.
    static func parsePublicURL(_ text: String) throws -> String {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http",
            let host = url.host, !host.isEmpty, url.path.isEmpty, url.query == nil, url.fragment == nil, url.user == nil
        else {
            throw ConfigurationError(
                "LOGISTICS_PUBLIC_URL must be an address like https://deliveries.example.com, not \(text)")
        }
        return trimmed
    }
}
