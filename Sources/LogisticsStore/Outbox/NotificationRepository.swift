import Foundation
import LogisticsCore

/// A notification claimed for sending: one destination (device or webhook) and the outbox message it carries.
public struct PendingNotification: Sendable, Equatable {
    public var id: Int
    public var channel: NotificationChannel
    /// A push token, or the webhook's URL.
    public var target: String
    public var destinationId: String
    public var locale: String?
    /// Attempts already made before this one.
    public var attempts: Int
    /// When the retry budget started (the first fan-out, or the last redelivery).
    public var budgetFrom: Date
    public var eventId: UUID
    public var orderId: UUID
    public var topic: String
    public var title: String?
    public var body: String?
    public var textKey: String?
    public var textArguments: [String: String]
    /// The outbox's event document (what webhooks receive).
    public var payload: String
    /// The webhook's secret; nil for pushes, or for a webhook deleted since.
    public var webhookSecret: String?
}

/// How one attempt ended, as the store records it.
public enum NotificationResult: Sendable, Equatable {
    /// Taken by the provider, with its id for the message when it has one.
    case sent(providerId: String?)
    /// Try again at the given time (the lease is released).
    case retry(at: Date, reason: String)
    /// Given up: permanently refused, or out of retry budget. Webhook dead letters can be redelivered.
    case dead(reason: String)
    /// The provider says the push token is gone: the device is forgotten with everything queued for it.
    case unregistered(reason: String)
}

/// A webhook or push that ran out of retries, for admins to inspect and redeliver.
public struct DeadLetter: Sendable, Equatable {
    public var id: Int
    public var channel: NotificationChannel
    public var destinationId: String
    public var target: String
    public var eventId: UUID
    public var orderId: UUID
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Date
    public var deadAt: Date?
}

/// How far behind notification sending is.
public struct NotificationBacklog: Sendable, Equatable {
    public var pending: Int
    public var oldestPendingSince: Date?
}

/// Devices, webhooks, and the queue of notifications fanned out from the outbox.
public protocol NotificationRepository: Sendable {
    /// Creates or replaces the caller's device (the same push token registered by someone else is moved here).
    func registerDevice(_ device: RegisteredDevice, now: Date) async throws -> RegisteredDevice
    /// Forgets the caller's device; false when there was none.
    func removeDevice(ownerId: UUID, deviceId: String) async throws -> Bool

    func createWebhook(_ webhook: WebhookSubscription, createdBy: UUID) async throws
    func webhooks() async throws -> [WebhookSubscription]
    /// Stops deliveries to the webhook; false when there was none.
    func deleteWebhook(id: UUID, now: Date) async throws -> Bool
    /// Rewrites every stored webhook secret (deleted webhooks' too) for which `rewrite` gives a new value; each row
    /// changes only if it still holds the value `rewrite` saw, so instances starting together do not clash.
    /// Returns how many rows changed.
    func rewriteWebhookSecrets(_ rewrite: @Sendable (String) -> String?) async throws -> Int

    /// In one transaction: one delivery per destination of each message on an enabled channel (idempotent, so
    /// two instances fanning out the same rows queue them once), and the messages marked sent.
    /// Customers' messages go to the first of their order's channels they can be reached on (`customerChannels`
    /// when the order names none).
    func fanOut(
        _ messages: [OutboxMessage], channels: Set<NotificationChannel>, customerChannels: [CustomerChannel], now: Date
    ) async throws
    /// Leases up to `limit` due notifications, never two of one ordering key and never one whose predecessor of
    /// the same key is still pending; rows leased by another instance are skipped.
    func claimNotifications(owner: String, limit: Int, leaseUntil: Date, now: Date) async throws
        -> [PendingNotification]
    func finishNotification(_ notification: PendingNotification, result: NotificationResult, now: Date) async throws
    func deadLetters(limit: Int) async throws -> [DeadLetter]
    /// Puts a dead letter back in the queue with a fresh budget; false when there is no such dead letter.
    func redeliver(id: Int, now: Date) async throws -> Bool
    func notificationBacklog() async throws -> NotificationBacklog
    /// What a provider later said about a message it took (`delivered`, `undelivered`, `failed`…), by its id; false
    /// when no message of that channel has the id.
    func recordProviderStatus(
        channel: NotificationChannel, providerId: String, status: String, error: String?, now: Date
    ) async throws -> Bool
    /// A phone's answer to a text: STOP (`optedOut`) silences customer texts to it on every order until START.
    func setTextOptOut(phone: String, optedOut: Bool, source: String, now: Date) async throws
    /// Every delivery of the order's messages, oldest first, fallbacks included.
    func messageDeliveries(orderId: UUID) async throws -> [MessageDelivery]
    /// Called once at start: frees leases that can only belong to a process that died (SQLite is one process's
    /// file, so every lease found there is stale); on PostgreSQL other instances may be sending, so leases are
    /// left to run out.
    func releaseStaleLeases() async throws
}
