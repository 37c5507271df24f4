import Foundation
import Logging
import LogisticsCore
import LogisticsStore

extension ServerComponents {
    /// Everything the routers and background services are built from, on an open, migrated store.
    static func assemble(
        _ configuration: ServerConfiguration, database: any SQLDatabase, keys: ServerKeys, clock: any WallClock,
        logger: Logger
    ) async throws -> ServerComponents {
        let otp = DeliveryOTP(serverSecret: keys.serverSecret)
        let repository = SQLLogisticsRepository(database: database, logger: logger)
        let sealer = SecretSealer(serverSecret: keys.serverSecret)
        try await WebhookSecrets.sealStored(repository: repository, sealer: sealer, logger: logger)
        let metrics = RequestMetrics()
        let directions = try await DirectionsSetup.provider(configuration, logger: logger)
        let navigator = Navigator(provider: directions, registry: metrics.registry, logger: logger)
        let hub = TrackingHub(staleAfterSeconds: TimeInterval(configuration.tracking.staleSeconds))
        // With PostgreSQL, several instances may serve one fleet: tracking updates cross over LISTEN/NOTIFY.
        let postgresRelay = (database as? PostgresDatabase).map {
            PostgresTrackingRelay(hub: hub, database: $0, schema: configuration.database.schema, logger: logger)
        }
        let relay: any TrackingRelay = postgresRelay ?? LocalTrackingRelay(hub: hub)
        // The watch that closes a suspended rider's sockets also makes this instance's API ask about them again.
        let callerCache = CallerCache()
        // Only a server holding the secret issues tokens (sign-in); with a public key it verifies only.
        var issuer: AccessTokenIssuer?
        if let secret = keys.jwtSecret {
            issuer = await AccessTokenIssuer(
                secret: secret, issuer: configuration.tokens.issuer, audience: configuration.tokens.audience)
        }
        let vehicles = RiderVehicles(people: repository, clock: clock)
        let etas = EtaLedger(
            repository: repository, navigator: navigator, registry: metrics.registry, logger: logger,
            vehicles: vehicles)
        return ServerComponents(
            configuration: configuration, database: database, repository: repository,
            blobs: FileBlobStore(directory: configuration.blobDirectory), clock: clock, otp: otp,
            signInCodes: SignInCodes(serverSecret: keys.serverSecret),
            intake: OrderIntake(otp: otp),
            verifier: try await AccessTokenVerifier.make(
                configuration: configuration, secret: keys.jwtSecret, clock: clock),
            tokens: issuer,
            navigator: navigator,
            tracking: hub,
            logger: logger,
            relay: relay,
            postgresRelay: postgresRelay,
            ingest: LocationIngest(
                repository: repository, relay: relay, navigator: navigator, etas: etas, clock: clock,
                fixesPerRider: configuration.rateLimits.fixesPerRider,
                commitsAtOnce: database.dialect == .postgres ? 2 : 1),
            etas: etas,
            vehicles: vehicles,
            trackingLinks: TrackingLinks(serverSecret: keys.serverSecret),
            revocationWatch: RevocationWatch(
                repository: repository, logger: logger, now: { clock.now() },
                onSuspended: { callerCache.forgetRider($0) }, onSessionEnded: { callerCache.forgetSession($0) }),
            secretSealer: sealer,
            callerCache: callerCache,
            mapTiles: MapTileCache(provider: directions),
            metrics: metrics,
            addressLimiter: configuration.rateLimits.perAddress.map { RateLimiter($0, what: "requests") },
            callers: CallerLimits(configuration.rateLimits, clock: clock),
            autoDispatcher: configuration.dispatch.automatic == .off
                ? nil
                : AutoDispatcher(
                    repository: repository, navigator: navigator, settings: configuration.dispatch,
                    offerTTL: TimeInterval(configuration.delivery.offerTTLSeconds), clock: clock,
                    registry: metrics.registry,
                    logger: logger))
    }
}
