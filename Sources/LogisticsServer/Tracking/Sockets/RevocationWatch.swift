import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import ServiceLifecycle
import Synchronization

/// Re-checks the holders of open sockets against the database twice a second, so a rider suspended or a tracking
/// link revoked on any instance loses its streams within a second (4403), and a sign-in session ended there loses
/// them too (4401), not when the token runs out. One query per kind of holder per pass, whatever the number of
/// sockets.
final class RevocationWatch: Service, Sendable {
    enum Holder: Hashable, Sendable {
        case rider(UUID)
        case trackingLink(UUID)
        case session(UUID)
    }

    private struct Watched: Sendable {
        var holder: Holder
        /// Told why the holder lost access.
        var revoke: @Sendable (LogisticsError) -> Void
    }

    private let watched = Mutex<[UUID: Watched]>([:])
    private let repository: any LogisticsRepository
    private let interval: Duration
    private let logger: Logger
    /// Told of every suspended rider it finds, so the API stops trusting its cached "not suspended" at once.
    private let onSuspended: @Sendable (UUID) -> Void
    /// Told of every ended session it finds, so the API stops accepting its tokens at once.
    private let onSessionEnded: @Sendable (UUID) -> Void
    private let now: @Sendable () -> Date

    init(
        repository: any LogisticsRepository, interval: Duration = .milliseconds(500), logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() },
        onSuspended: @escaping @Sendable (UUID) -> Void = { _ in },
        onSessionEnded: @escaping @Sendable (UUID) -> Void = { _ in }
    ) {
        self.repository = repository
        self.interval = interval
        self.logger = logger
        self.now = now
        self.onSuspended = onSuspended
        self.onSessionEnded = onSessionEnded
    }

    /// Watches a socket's holder until `unwatch` with the returned ticket.
    func watch(_ holder: Holder, revoke: @escaping @Sendable (LogisticsError) -> Void) -> UUID {
        let ticket = UUID()
        watched.withLock { $0[ticket] = Watched(holder: holder, revoke: revoke) }
        return ticket
    }

    func unwatch(_ ticket: UUID) {
        _ = watched.withLock { $0.removeValue(forKey: ticket) }
    }

    /// A change made on this instance need not wait for the next pass.
    func checkSoon() {
        Task { await checkOnce() }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.checkOnce()
                do { try await Task.sleep(for: self.interval) } catch { return }
            }
        }
    }

    func checkOnce() async {
        let current = watched.withLock { $0 }
        guard !current.isEmpty else { return }
        var riders: Set<UUID> = []
        var links: Set<UUID> = []
        var sessions: Set<UUID> = []
        for entry in current.values {
            switch entry.holder {
            case .rider(let id): riders.insert(id)
            case .trackingLink(let id): links.insert(id)
            case .session(let id): sessions.insert(id)
            }
        }
        let suspended: Set<UUID>
        let revoked: Set<UUID>
        let ended: Set<UUID>
        do {
            suspended = riders.isEmpty ? [] : try await repository.suspendedRiders(among: riders)
            revoked = links.isEmpty ? [] : try await repository.revokedTrackingLinks(among: links)
            ended = sessions.isEmpty ? [] : try await repository.endedSessions(among: sessions, now: now())
        } catch {
            // A database that cannot answer now is asked again on the next pass; sockets stay as they are.
            logger.debug("access watch could not check", metadata: ["error": "\(error)"])
            return
        }
        suspended.forEach(onSuspended)
        ended.forEach(onSessionEnded)
        for (ticket, entry) in current {
            let reason: LogisticsError? =
                switch entry.holder {
                case .rider(let id):
                    suspended.contains(id) ? LogisticsError(.forbidden, "This rider account is suspended") : nil
                case .trackingLink(let id):
                    revoked.contains(id) ? LogisticsError(.forbidden, "This tracking link was revoked") : nil
                case .session(let id):
                    ended.contains(id) ? LogisticsError(.unauthenticated, "This sign-in was ended; sign in again") : nil
                }
            guard let reason else { continue }
            unwatch(ticket)
            entry.revoke(reason)
        }
    }
}
