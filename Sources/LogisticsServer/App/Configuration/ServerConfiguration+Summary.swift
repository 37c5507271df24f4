import Foundation

extension ServerConfiguration {
    /// The effective configuration as printed at start, with secrets masked.
    public var summary: [(String, String)] {
        [
            ("environment", environment.rawValue),
            ("listen", "\(host):\(port)"),
            ("tls", tlsCertificateFile.map { "certificate \($0), key \(tlsKeyFile ?? "(none)")" } ?? "off"),
            ("data dir", dataDirectory),
            (
                "database",
                database.url.map(Self.maskedURL) ?? (database.inMemory ? "sqlite (in memory)" : "sqlite \(sqlitePath)")
            ),
            ("database pool", "\(database.poolSize)"),
            (
                "jwt",
                tokens.publicKeyFile.map { "public key \($0)" }
                    ?? (tokens.jwtSecret == nil ? "generated dev secret" : "secret ********")
            ),
            ("offer ttl", "\(delivery.offerTTLSeconds)s"),
            ("failed wait", "\(delivery.failedWaitSeconds)s"),
            ("geofence radius", "\(Int(delivery.geofenceRadiusM))m"),
            ("dispatch", dispatch.summary),
            (
                "navigation",
                routing.provider == .external
                    ? "external \(routing.url ?? "(no LOGISTICS_ROUTING_URL)")"
                    : "built-in, \(routing.profile.rawValue), map \(routing.mapPath ?? "none (set LOGISTICS_MAP)")"
            ),
            (
                "push (fcm)",
                notifications.fcmServiceAccountFile.map { "service account \($0), \(notifications.fcmBaseURL)" }
                    ?? "off"
            ),
            (
                "push (apns)",
                notifications.apnsKeyFile.map {
                    "key \($0) (\(notifications.apnsKeyId ?? "?")), \(notifications.apnsBaseURL)"
                } ?? "off"
            ),
            (
                "webhooks",
                "retry from \(notifications.webhookRetryBaseSeconds)s for \(notifications.webhookRetryBudgetSeconds)s"
            ),
            ("text messages", textMessages.summary),
            ("customer messages", customerMessages.summary),
            (
                "sign-in",
                signIn.enabled
                    ? "by phone and code; access tokens \(signIn.accessTokenMinutes) min, refresh \(signIn.refreshTokenDays) days"
                    : "off (tokens from elsewhere only)"
            ),
            ("log", "\(effectiveLogFormat.rawValue) on stderr, \(logLevel.rawValue) and above"),
            (
                "rate limits",
                "per address \(rateLimits.perAddress?.description ?? "off"), per caller "
                    + "\(rateLimits.perCaller?.description ?? "off"), fixes per rider "
                    + "\(rateLimits.fixesPerRider?.description ?? "off")"
            ),
        ]
    }

    static func maskedURL(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "********" }
        if components.password != nil { components.password = "********" }
        return components.string ?? "********"
    }
}
