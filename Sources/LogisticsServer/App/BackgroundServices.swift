import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import ServiceLifecycle

/// What runs beside the routers until graceful shutdown: the outbox and notification dispatchers, housekeeping,
/// cache expiry, the revocation watch, the tracking relay and sweeper, automatic dispatch, and the directions
/// provider's own work (learning traffic). The database closes last, after in-flight requests have drained.
func backgroundServices(_ components: ServerComponents, senders: [NotificationChannel: any NotificationSender])
    -> [any Service]
{
    let (configuration, repository, clock, logger) = (
        components.configuration, components.repository, components.clock, components.logger
    )
    var services: [any Service] = [
        DatabaseLifecycle(database: components.database),
        TrackingSweeper(hub: components.tracking, clock: clock),
        CacheExpiry(
            ingest: components.ingest, etas: components.etas, verifier: components.verifier,
            callerCache: components.callerCache, directions: components.navigator.provider, clock: clock,
            logger: logger),
        components.revocationWatch,
        Housekeeping(
            repository: repository, blobs: components.blobs, clock: clock, logger: logger,
            policy: RetentionPolicy(
                locationFixesDays: configuration.retention.fixesDays, photosDays: configuration.retention.photosDays,
                personalDataDays: configuration.retention.personalDataDays)),
        OutboxDispatcher(
            repository: repository, deliveries: repository, notifications: repository,
            channels: Set(senders.keys), customerChannels: configuration.customerMessages.channels,
            subscribers: [TrackingEventFeed(relay: components.relay)],
            clock: clock, logger: logger, wake: components.outboxWake, queued: components.notificationWake),
        NotificationDispatcher(
            repository: repository, senders: senders, policies: NotificationSetup.policies(configuration),
            clock: clock, registry: components.metrics.registry, logger: logger, wake: components.notificationWake),
    ]
    if let relay = components.postgresRelay { services.append(relay) }
    if let dispatcher = components.autoDispatcher { services.append(dispatcher) }
    services += components.navigator.provider.backgroundServices(
        DirectionsWorkContext(
            learnedSpeeds: repository,
            trafficMatchInterval: .milliseconds(configuration.routing.trafficMatchMilliseconds),
            trafficCustomiseInterval: .milliseconds(configuration.routing.trafficCustomiseMilliseconds),
            learnedSpeedsStoreInterval: .milliseconds(configuration.routing.learnedSpeedsStoreMilliseconds),
            clock: clock,
            registry: components.metrics.registry, logger: logger))
    return services
}

/// Closes the database after the server has drained its in-flight requests.
struct DatabaseLifecycle: Service {
    let database: any SQLDatabase

    func run() async throws {
        try? await gracefulShutdown()
        await database.close()
    }
}
