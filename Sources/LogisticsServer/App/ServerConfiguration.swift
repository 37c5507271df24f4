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
    /// A `postgres://` URL; nil means SQLite in the data directory.
    public var databaseURL: String?
    /// PostgreSQL schema to use (tests isolate themselves with one schema each).
    public var databaseSchema: String?
    public var databasePoolSize: Int = 10
    /// How long a request waits for PostgreSQL before answering 503.
    public var databaseTimeoutSeconds: Int = 5
    public var environment: Environment = .development
    public var jwtSecret: String?
    /// Key for delivery codes; defaults to the JWT secret.
    public var otpSecret: String?
    /// A PEM public key (RS256/ES256) or a JWKS JSON file for production tokens.
    public var jwtPublicKeyFile: String?
    /// The algorithm of the public key file's keys that name none (a JWKS key without `alg`, or PS256 for an RSA
    /// PEM); a key is never verified with an algorithm a token's header picks.
    public var jwtAlgorithm: String?
    public var jwtIssuer: String = "rider-logistics"
    public var jwtAudience: String = "rider-logistics-api"
    public var offerTTLSeconds: Int = 60
    public var failedWaitSeconds: Int = 600
    public var geofenceRadiusM: Double = 500
    /// Days riders' location fixes are kept (by the time they arrived), then deleted by housekeeping.
    public var retainFixesDays: Int = 30
    /// Days photo proofs are kept, then their files and rows are deleted by housekeeping.
    public var retainPhotosDays: Int = 90
    /// Days after an order ends before its customer's details are anonymised by housekeeping.
    public var retainPersonalDataDays: Int = 90
    /// Where photos are kept; `<data-dir>/blobs` by default.
    public var blobDirectoryOverride: String?
    /// The road map for the built-in router: an `.osm.pbf` extract (imported and cached in the data dir on first
    /// start) or a prepared `.graph` file. Without one, navigation answers 503 NAVIGATION_UNAVAILABLE.
    public var mapPath: String?
    /// Where graphs imported from a `.pbf` are cached; `<data-dir>/maps` by default.
    public var mapCacheDirectoryOverride: String?
    public var routingProfile: RoutingProfileName = .motorcycle
    public var routingProvider: RoutingProviderKind = .builtin
    /// Base URL of an OSRM/Mapbox-style directions service, for `routingProvider == .external`.
    public var routingURL: String?
    /// A file holding the external provider's access key (never the key itself in configuration).
    public var routingKeyFile: String?
    /// Positions farther than this from any routable road are refused with 422.
    public var maxSnapDistanceM: Double = 300
    /// How often live speeds are customised into route choice (the built-in router).
    public var trafficCustomiseMilliseconds: Int = 30_000
    /// Whether the built-in router learns traffic from the fleet's fixes (live and time-of-day speeds). Off, routes
    /// and ETAs use the profile's speeds and an external feed's only: the baseline `logistics-bench eta` compares.
    public var trafficLearning = true
    /// How often riders' new fixes are matched to the roads and learned from (the built-in router).
    public var trafficMatchMilliseconds: Int = 500
    /// How often this instance stores the speeds it learned and reads what the others stored.
    public var learnedSpeedsStoreMilliseconds: Int = 60_000
    /// The city's time zone: learned speeds are kept per quarter hour of its week (rush hours follow local time).
    public var timeZone: TimeZone = TimeZone(identifier: "UTC")!
    /// A Google service-account JSON file; enables pushes to Android and web devices through FCM.
    public var fcmServiceAccountFile: String?
    public var fcmBaseURL: String = "https://fcm.googleapis.com"
    /// An APNs .p8 key with its key id, team id and the app's bundle id (topic); enables pushes to iPhones.
    public var apnsKeyFile: String?
    public var apnsKeyId: String?
    public var apnsTeamId: String?
    public var apnsTopic: String?
    public var apnsBaseURL: String = "https://api.push.apple.com"
    /// PEM certificates to trust for APNs instead of the system's roots (an egress proxy that terminates TLS).
    public var apnsCAFile: String?
    /// The first webhook retry waits up to this long; later ones double, up to an hour apart.
    public var webhookRetryBaseSeconds: Double = 5
    /// Webhooks are retried this long, then dead-lettered.
    public var webhookRetryBudgetSeconds: Int = 24 * 3600
    /// Pushes are retried this long, then dropped (a late "your rider has arrived" is noise).
    public var pushRetryBudgetSeconds: Int = 3600
    /// Raster tiles for the web pages' maps instead of the server's own road tiles.
    public var tileServer: RasterTileServer?
    /// Requests per client address, per caller, and fixes per rider; each instance counts its own.
    public var rateLimits = RateLimits()
    /// Header, body and idle timeouts and the cap on connections per address.
    public var connectionLimits = ConnectionLimits()
    /// Proxies (nginx, a load balancer) whose `X-Forwarded-For` names the client for rate limits.
    public var trustedProxies: [String] = []
    /// PEM certificate chain and private key: the server speaks HTTPS and WSS itself (read again on SIGHUP).
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    /// Set by `logistics demo` only: the rider app offers "Simulate my drive", for desktop browsers without GPS.
    public var riderAppDemo: Bool = false
    /// A tracking stream turns `stale` after this long without a fix (the contract's 15 s; tests shorten it).
    public var trackingStaleSeconds: Int = 15
    /// Development mode on an address other than loopback: refused unless asked for, since development allows
    /// webhooks into private networks and signs in with a generated secret.
    public var developmentOnNetwork = false
    /// How often a socket's peer is pinged; one that has not answered the previous ping is cut (tests shorten it).
    public var socketPingSeconds: Double = 20
    /// nil: JSON in production, text in development (`effectiveLogFormat`).
    public var logFormat: LogFormat?
    public var logLevel: Logger.Level = .info
    public var migrate: Bool = true
    /// A call-masking number riders dial to reach the customer (`LOGISTICS_RIDER_CONTACT_NUMBER`); without it they
    /// see only the masked phone.
    public var riderContactNumber: String?
    /// Where people reach this server (`LOGISTICS_PUBLIC_URL`, scheme and host, no path): tracking links handed to
    /// customers are absolute on it. Without it, the address the server listens on.
    public var publicURL: String?
    public var textMessages = TextMessageSettings()
    public var signIn = SignInSettings()
    /// How long after its order ended a tracking link still shows the end; after that it answers 410.
    public var trackingLinkHoursAfterEnd: Int = 24
    /// `LOGISTICS_FAULT_CRASH_AFTER_COMMIT`: the crash test's fault switch; never on in service.
    public var crashAfterCommit: Bool = false
    /// Automatic dispatch and the travel matrix.
    public var dispatch = DispatchSettings()
    /// Use a throwaway in-memory SQLite database (tests only).
    public var inMemoryDatabase: Bool = false

    public init() {}

    public var sqlitePath: String { (dataDirectory as NSString).appendingPathComponent("logistics.sqlite") }
    public var blobDirectory: String {
        blobDirectoryOverride ?? (dataDirectory as NSString).appendingPathComponent("blobs")
    }
    public var mapCacheDirectory: String {
        mapCacheDirectoryOverride ?? (dataDirectory as NSString).appendingPathComponent("maps")
    }
    public var jwtSecretFile: String { (dataDirectory as NSString).appendingPathComponent("jwt-secret") }

    /// Applies `LOGISTICS_*` and `DATABASE_URL` environment variables over the defaults; flags are applied
    /// by the caller afterwards, so flags win.
    public static func fromEnvironment(_ environment: [String: String]) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        if let host = environment["LOGISTICS_HOST"] { configuration.host = host }
        if let on = environment["LOGISTICS_DEVELOPMENT_ON_NETWORK"] {
            guard on == "on" || on == "off" else {
                throw ConfigurationError("LOGISTICS_DEVELOPMENT_ON_NETWORK must be on or off, not \(on)")
            }
            configuration.developmentOnNetwork = on == "on"
        }
        if let port = environment["LOGISTICS_PORT"] {
            configuration.port = try parseInt(port, name: "LOGISTICS_PORT", range: 0...65535)
        }
        if let directory = environment["LOGISTICS_DATA_DIR"] { configuration.dataDirectory = directory }
        if let url = environment["DATABASE_URL"], !url.isEmpty { configuration.databaseURL = url }
        if let schema = environment["LOGISTICS_DATABASE_SCHEMA"], !schema.isEmpty {
            guard schema.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                throw ConfigurationError("LOGISTICS_DATABASE_SCHEMA must be letters, digits and _, not \(schema)")
            }
            configuration.databaseSchema = schema
        }
        if let size = environment["LOGISTICS_DATABASE_POOL_SIZE"] {
            configuration.databasePoolSize = try parseInt(size, name: "LOGISTICS_DATABASE_POOL_SIZE", range: 1...500)
        }
        if let timeout = environment["LOGISTICS_DATABASE_TIMEOUT_SECONDS"] {
            configuration.databaseTimeoutSeconds = try parseInt(
                timeout, name: "LOGISTICS_DATABASE_TIMEOUT_SECONDS", range: 1...300)
        }
        if let secret = environment["LOGISTICS_JWT_SECRET"], !secret.isEmpty { configuration.jwtSecret = secret }
        if let secret = environment["LOGISTICS_OTP_SECRET"], !secret.isEmpty { configuration.otpSecret = secret }
        if let file = environment["LOGISTICS_JWT_PUBLIC_KEY_FILE"] { configuration.jwtPublicKeyFile = file }
        if let algorithm = environment["LOGISTICS_JWT_ALGORITHM"], !algorithm.isEmpty {
            guard TokenKeys.publicKeyAlgorithms.contains(algorithm) else {
                throw ConfigurationError(
                    "LOGISTICS_JWT_ALGORITHM must be one of \(TokenKeys.publicKeyAlgorithms.sorted().joined(separator: ", ")), not \(algorithm)"
                )
            }
            configuration.jwtAlgorithm = algorithm
        }
        if let env = environment["LOGISTICS_ENV"] {
            guard let parsed = Environment(rawValue: env) else {
                throw ConfigurationError("LOGISTICS_ENV must be development or production, not \(env)")
            }
            configuration.environment = parsed
        }
        if let ttl = environment["LOGISTICS_OFFER_TTL_SECONDS"] {
            configuration.offerTTLSeconds = try parseInt(ttl, name: "LOGISTICS_OFFER_TTL_SECONDS", range: 1...86_400)
        }
        if let radius = environment["LOGISTICS_GEOFENCE_RADIUS_M"] {
            configuration.geofenceRadiusM = Double(
                try parseInt(radius, name: "LOGISTICS_GEOFENCE_RADIUS_M", range: 10...100_000))
        }
        if let directory = environment["LOGISTICS_BLOB_DIR"], !directory.isEmpty {
            configuration.blobDirectoryOverride = directory
        }
        if let map = environment["LOGISTICS_MAP"], !map.isEmpty { configuration.mapPath = map }
        if let cache = environment["LOGISTICS_MAP_CACHE_DIR"], !cache.isEmpty {
            configuration.mapCacheDirectoryOverride = cache
        }
        if let profile = environment["LOGISTICS_ROUTING_PROFILE"] {
            guard let parsed = RoutingProfileName(rawValue: profile) else {
                throw ConfigurationError("LOGISTICS_ROUTING_PROFILE must be motorcycle or car, not \(profile)")
            }
            configuration.routingProfile = parsed
        }
        if let provider = environment["LOGISTICS_ROUTING_PROVIDER"] {
            guard let parsed = RoutingProviderKind(rawValue: provider) else {
                throw ConfigurationError("LOGISTICS_ROUTING_PROVIDER must be builtin or external, not \(provider)")
            }
            configuration.routingProvider = parsed
        }
        if let url = environment["LOGISTICS_ROUTING_URL"], !url.isEmpty { configuration.routingURL = url }
        if let file = environment["LOGISTICS_ROUTING_KEY_FILE"], !file.isEmpty { configuration.routingKeyFile = file }
        if let distance = environment["LOGISTICS_MAX_SNAP_DISTANCE_M"] {
            configuration.maxSnapDistanceM = Double(
                try parseInt(distance, name: "LOGISTICS_MAX_SNAP_DISTANCE_M", range: 1...10_000))
        }
        if let interval = environment["LOGISTICS_TRAFFIC_CUSTOMISE_MS"] {
            configuration.trafficCustomiseMilliseconds = try parseInt(
                interval, name: "LOGISTICS_TRAFFIC_CUSTOMISE_MS", range: 100...3_600_000)
        }
        if let learning = environment["LOGISTICS_TRAFFIC_LEARNING"] {
            guard ["on", "off"].contains(learning) else {
                throw ConfigurationError("LOGISTICS_TRAFFIC_LEARNING must be on or off")
            }
            configuration.trafficLearning = learning == "on"
        }
        if let interval = environment["LOGISTICS_TRAFFIC_MATCH_MS"] {
            configuration.trafficMatchMilliseconds = try parseInt(
                interval, name: "LOGISTICS_TRAFFIC_MATCH_MS", range: 10...60_000)
        }
        if let interval = environment["LOGISTICS_LEARNED_SPEEDS_STORE_MS"] {
            configuration.learnedSpeedsStoreMilliseconds = try parseInt(
                interval, name: "LOGISTICS_LEARNED_SPEEDS_STORE_MS", range: 100...3_600_000)
        }
        if let zone = environment["LOGISTICS_TIME_ZONE"] {
            guard let parsed = TimeZone(identifier: zone) else {
                throw ConfigurationError("LOGISTICS_TIME_ZONE must be a time zone name such as Europe/Monaco or UTC")
            }
            configuration.timeZone = parsed
        }
        if let wait = environment["LOGISTICS_FAILED_WAIT_SECONDS"] {
            configuration.failedWaitSeconds = try parseInt(
                wait, name: "LOGISTICS_FAILED_WAIT_SECONDS", range: 0...86_400)
        }
        if let days = environment["LOGISTICS_RETAIN_FIXES_DAYS"] {
            configuration.retainFixesDays = try parseInt(days, name: "LOGISTICS_RETAIN_FIXES_DAYS", range: 1...3650)
        }
        if let days = environment["LOGISTICS_RETAIN_PHOTOS_DAYS"] {
            configuration.retainPhotosDays = try parseInt(days, name: "LOGISTICS_RETAIN_PHOTOS_DAYS", range: 1...3650)
        }
        if let days = environment["LOGISTICS_RETAIN_PERSONAL_DATA_DAYS"] {
            configuration.retainPersonalDataDays = try parseInt(
                days, name: "LOGISTICS_RETAIN_PERSONAL_DATA_DAYS", range: 1...3650)
        }
        if let file = environment["LOGISTICS_FCM_SERVICE_ACCOUNT_FILE"], !file.isEmpty {
            configuration.fcmServiceAccountFile = file
        }
        if let url = environment["LOGISTICS_FCM_BASE_URL"], !url.isEmpty { configuration.fcmBaseURL = url }
        if let file = environment["LOGISTICS_APNS_KEY_FILE"], !file.isEmpty { configuration.apnsKeyFile = file }
        if let id = environment["LOGISTICS_APNS_KEY_ID"], !id.isEmpty { configuration.apnsKeyId = id }
        if let id = environment["LOGISTICS_APNS_TEAM_ID"], !id.isEmpty { configuration.apnsTeamId = id }
        if let topic = environment["LOGISTICS_APNS_TOPIC"], !topic.isEmpty { configuration.apnsTopic = topic }
        if let url = environment["LOGISTICS_APNS_BASE_URL"], !url.isEmpty { configuration.apnsBaseURL = url }
        if let file = environment["LOGISTICS_APNS_CA_FILE"], !file.isEmpty { configuration.apnsCAFile = file }
        if let base = environment["LOGISTICS_WEBHOOK_RETRY_BASE_SECONDS"] {
            guard let seconds = Double(base), seconds > 0, seconds <= 3600 else {
                throw ConfigurationError(
                    "LOGISTICS_WEBHOOK_RETRY_BASE_SECONDS must be a number of seconds in (0, 3600]")
            }
            configuration.webhookRetryBaseSeconds = seconds
        }
        if let budget = environment["LOGISTICS_WEBHOOK_RETRY_BUDGET_SECONDS"] {
            configuration.webhookRetryBudgetSeconds = try parseInt(
                budget, name: "LOGISTICS_WEBHOOK_RETRY_BUDGET_SECONDS", range: 1...(7 * 86_400))
        }
        if let budget = environment["LOGISTICS_PUSH_RETRY_BUDGET_SECONDS"] {
            configuration.pushRetryBudgetSeconds = try parseInt(
                budget, name: "LOGISTICS_PUSH_RETRY_BUDGET_SECONDS", range: 1...86_400)
        }
        if let template = environment["LOGISTICS_TILE_URL"], !template.isEmpty {
            configuration.tileServer = try RasterTileServer(template: template)
        }
        if let stale = environment["LOGISTICS_TRACKING_STALE_SECONDS"] {
            configuration.trackingStaleSeconds = try parseInt(
                stale, name: "LOGISTICS_TRACKING_STALE_SECONDS", range: 1...3600)
        }
        if let rule = environment["LOGISTICS_RATE_LIMIT_ADDRESS"], !rule.isEmpty {
            configuration.rateLimits.perAddress = try RateRule.parse(rule, name: "LOGISTICS_RATE_LIMIT_ADDRESS")
        }
        if let rule = environment["LOGISTICS_RATE_LIMIT_CALLER"], !rule.isEmpty {
            configuration.rateLimits.perCaller = try RateRule.parse(rule, name: "LOGISTICS_RATE_LIMIT_CALLER")
        }
        if let rule = environment["LOGISTICS_RATE_LIMIT_FIXES"], !rule.isEmpty {
            configuration.rateLimits.fixesPerRider = try RateRule.parse(rule, name: "LOGISTICS_RATE_LIMIT_FIXES")
        }
        if let cap = environment["LOGISTICS_SOCKETS_PER_CALLER"], !cap.isEmpty {
            configuration.rateLimits.socketsPerCaller =
                cap == "off" ? nil : try parseInt(cap, name: "LOGISTICS_SOCKETS_PER_CALLER", range: 1...100_000)
        }
        if let cap = environment["LOGISTICS_SOCKETS_PER_TRACKING_LINK"], !cap.isEmpty {
            configuration.rateLimits.socketsPerTrackingLink =
                cap == "off" ? nil : try parseInt(cap, name: "LOGISTICS_SOCKETS_PER_TRACKING_LINK", range: 1...100_000)
        }
        if let seconds = environment["LOGISTICS_HEADER_TIMEOUT_SECONDS"] {
            configuration.connectionLimits.headerSeconds = Double(
                try parseInt(seconds, name: "LOGISTICS_HEADER_TIMEOUT_SECONDS", range: 1...600))
        }
        if let seconds = environment["LOGISTICS_BODY_TIMEOUT_SECONDS"] {
            configuration.connectionLimits.bodyGapSeconds = Double(
                try parseInt(seconds, name: "LOGISTICS_BODY_TIMEOUT_SECONDS", range: 1...600))
        }
        if let seconds = environment["LOGISTICS_IDLE_TIMEOUT_SECONDS"] {
            configuration.connectionLimits.idleSeconds = Double(
                try parseInt(seconds, name: "LOGISTICS_IDLE_TIMEOUT_SECONDS", range: 1...3600))
        }
        if let cap = environment["LOGISTICS_CONNECTIONS_PER_ADDRESS"], !cap.isEmpty {
            configuration.connectionLimits.perAddress =
                cap == "off" ? nil : try parseInt(cap, name: "LOGISTICS_CONNECTIONS_PER_ADDRESS", range: 1...1_000_000)
        }
        if let proxies = environment["LOGISTICS_TRUSTED_PROXIES"], !proxies.isEmpty {
            configuration.trustedProxies = proxies.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
        if let number = environment["LOGISTICS_RIDER_CONTACT_NUMBER"], !number.isEmpty {
            guard number.first == "+", number.dropFirst().allSatisfy({ $0.isNumber || $0 == " " }),
                number.filter(\.isNumber).count >= 6
            else {
                throw ConfigurationError("LOGISTICS_RIDER_CONTACT_NUMBER must be a number like +377 99 00 00 00")
            }
            configuration.riderContactNumber = number
        }
        if let address = environment["LOGISTICS_PUBLIC_URL"], !address.isEmpty {
            configuration.publicURL = try Self.parsePublicURL(address)
        }
        if let hours = environment["LOGISTICS_TRACKING_LINK_HOURS_AFTER_END"] {
            configuration.trackingLinkHoursAfterEnd = try parseInt(
                hours, name: "LOGISTICS_TRACKING_LINK_HOURS_AFTER_END", range: 0...8760)
        }
        if let fault = environment["LOGISTICS_FAULT_CRASH_AFTER_COMMIT"] {
            configuration.crashAfterCommit = ["1", "on", "true"].contains(fault.lowercased())
        }
        if let file = environment["LOGISTICS_TLS_CERT"], !file.isEmpty { configuration.tlsCertificateFile = file }
        if let file = environment["LOGISTICS_TLS_KEY"], !file.isEmpty { configuration.tlsKeyFile = file }
        if let format = environment["LOGISTICS_LOG_FORMAT"], !format.isEmpty {
            guard let parsed = LogFormat(rawValue: format) else {
                throw ConfigurationError("LOGISTICS_LOG_FORMAT must be text or json, not \(format)")
            }
            configuration.logFormat = parsed
        }
        try configuration.dispatch.apply(environment)
        try configuration.textMessages.apply(environment)
        try configuration.signIn.apply(environment)
        if let level = environment["LOG_LEVEL"], !level.isEmpty {
            guard let parsed = Logger.Level(rawValue: level) else {
                throw ConfigurationError(
                    "LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical, not \(level)")
            }
            configuration.logLevel = parsed
        }
        return configuration
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

    /// The address tracking links are made on: the configured public URL, else the address the caller reached this
    /// server by (its `Host`, when it is a plain host and port), else where the server listens.
    public func linkBaseURL(requestAuthority: String?) -> String {
        publicAddress.base(requestAuthority: requestAuthority)
    }

    var publicAddress: PublicAddress {
        PublicAddress(publicURL: publicURL, tls: tlsCertificateFile != nil, host: host, port: port)
    }

    static func parseInt(_ text: String, name: String, range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError("\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// The effective configuration as printed at start, with secrets masked.
    public var summary: [(String, String)] {
        [
            ("environment", environment.rawValue),
            ("listen", "\(host):\(port)"),
            ("tls", tlsCertificateFile.map { "certificate \($0), key \(tlsKeyFile ?? "(none)")" } ?? "off"),
            ("data dir", dataDirectory),
            (
                "database",
                databaseURL.map(Self.maskedURL) ?? (inMemoryDatabase ? "sqlite (in memory)" : "sqlite \(sqlitePath)")
            ),
            ("database pool", "\(databasePoolSize)"),
            (
                "jwt",
                jwtPublicKeyFile.map { "public key \($0)" }
                    ?? (jwtSecret == nil ? "generated dev secret" : "secret ********")
            ),
            ("offer ttl", "\(offerTTLSeconds)s"),
            ("failed wait", "\(failedWaitSeconds)s"),
            ("geofence radius", "\(Int(geofenceRadiusM))m"),
            ("dispatch", dispatch.summary),
            (
                "navigation",
                routingProvider == .external
                    ? "external \(routingURL ?? "(no LOGISTICS_ROUTING_URL)")"
                    : "built-in, \(routingProfile.rawValue), map \(mapPath ?? "none (set LOGISTICS_MAP)")"
            ),
            ("push (fcm)", fcmServiceAccountFile.map { "service account \($0), \(fcmBaseURL)" } ?? "off"),
            ("push (apns)", apnsKeyFile.map { "key \($0) (\(apnsKeyId ?? "?")), \(apnsBaseURL)" } ?? "off"),
            ("webhooks", "retry from \(webhookRetryBaseSeconds)s for \(webhookRetryBudgetSeconds)s"),
            ("text messages", textMessages.summary),
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

public typealias RoutingProfileName = RoutingProfile.Name

public enum RoutingProviderKind: String, Sendable {
    case builtin
    case external
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
