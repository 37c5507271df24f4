import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import LogisticsCore
import LogisticsStore
import NIOCore
import ServiceLifecycle

/// The assembled service: the Hummingbird application and what tests need to look inside it.
public struct LogisticsApplication: Sendable {
    public let application: Application<RouterResponder<LogisticsRequestContext>>
    public let components: ServerComponents
    public let routes: [RegisteredRoute]

    /// Returns once this instance receives other instances' tracking updates (at once without PostgreSQL).
    public func waitUntilTrackingIsShared() async {
        await components.postgresRelay?.waitUntilListening()
    }
}

/// Builds the whole service from its configuration: opens and migrates the store, loads keys, assembles the
/// components, and builds the routers and the background services from them. Tests call this directly.
public func buildApplication(
    _ configuration: ServerConfiguration,
    clock: any WallClock = SystemWallClock(),
    logger: Logger = Logger(label: "rider-logistics"),
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) async throws -> LogisticsApplication {
    try configuration.checkListenAddress()
    let keys = try ServerKeys.resolve(configuration, logger: logger)
    let tls = try TLSIdentity.configured(configuration)
    // Files that do not merge into one document stop the start here rather than fail `/openapi.json` later.
    _ = try OpenAPIDocument.served.get()

    let database = try await StoreFactory.open(configuration.storeLocation, logger: logger)
    do {
        if configuration.database.migrate {
            try await Migrator(database: database, logger: logger).migrate()
        }
        let components = try await ServerComponents.assemble(
            configuration, database: database, keys: keys, clock: clock, logger: logger)
        let providers = try ProviderSecrets(configuration)
        let twilioAuthToken = providers.twilioAuthToken
        let composer = CustomerTextComposer(
            orders: components.repository, riders: components.repository, links: components.repository,
            trackingLinks: components.trackingLinks, otp: components.otp,
            publicBase: configuration.publicAddress.base(requestAuthority: nil),
            settings: configuration.customerMessages, clock: clock)
        let (senders, senderServices) = try await NotificationSetup.senders(
            configuration, twilioAuthToken: twilioAuthToken, composer: composer, clock: clock,
            sealer: components.secretSealer, logger: logger)
        let (router, routes) = makeRouter(components, providers: providers)
        let socketResponder = makeSocketRouter(components).buildResponder()
        let connections = ConnectionRegistry(
            limit: configuration.connectionLimits.perAddress, exempt: Set(configuration.trustedProxies))
        let application = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                GuardedChildChannel(
                    inner: SocketUpgradeChannel(responder: responder, socketResponder: socketResponder),
                    limits: configuration.connectionLimits, registry: connections, tls: tls)
            },
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "rider-logistics"),
            services: backgroundServices(components, senders: senders) + senderServices
                + (tls.map { [CertificateReloader(identity: $0, logger: logger)] } ?? []),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            eventLoopGroupProvider: .shared(ServerLoops.group),
            logger: logger)
        return LogisticsApplication(application: application, components: components, routes: routes)
    } catch {
        await database.close()
        throw error
    }
}

/// The secrets tokens, delivery codes, tracking links and sealed webhook secrets are made with.
struct ServerKeys {
    /// The JWT secret; nil when tokens are verified with a public key (and this server issues none).
    let jwtSecret: String?
    /// Delivery codes, tracking links, sign-in codes and sealed secrets: the OTP secret, or the JWT secret.
    let serverSecret: [UInt8]

    static func resolve(_ configuration: ServerConfiguration, logger: Logger) throws -> ServerKeys {
        let secret: String? =
            configuration.tokens.publicKeyFile == nil ? try JWTSecret.resolve(configuration, logger: logger) : nil
        guard let otpSecret = configuration.tokens.otpSecret ?? secret else {
            throw ConfigurationError("LOGISTICS_OTP_SECRET is required when tokens are verified with a public key")
        }
        return ServerKeys(jwtSecret: secret, serverSecret: Array(otpSecret.utf8))
    }
}

extension ServerConfiguration {
    /// SQLite in the data directory (or in memory), or PostgreSQL when a database URL is set.
    var storeLocation: StoreFactory.Location {
        if let url = database.url {
            .postgres(
                .init(
                    url: url, poolSize: database.poolSize, schema: database.schema,
                    operationTimeout: .seconds(database.timeoutSeconds)))
        } else {
            .sqlite(path: database.inMemory ? nil : sqlitePath)
        }
    }
}
