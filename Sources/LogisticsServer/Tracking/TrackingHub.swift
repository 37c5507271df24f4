import Foundation
import LogisticsCore
import NIOCore
import Synchronization

/// The live-tracking state of every order followed on this instance, the customers following them, and the
/// dispatchers watching everything. State changes under one short lock; messages are handed to followers after
/// the lock is released. Sockets bound what they hold for a slow client themselves (`LoopSocket`, 4429); a stream
/// subscriber (`subscribe`) whose buffer overflows is cut off instead of slowing the others.
public final class TrackingHub: Sendable {
    /// Messages a stream subscriber may have queued before it counts as too slow.
    static let subscriberBuffer = 64
    /// Channels nobody follows are dropped after this long, ended ones sooner.
    static let idleLifetime: TimeInterval = 600
    static let endedLifetime: TimeInterval = 60
    /// Event ids remembered to drop the second copy of an at-least-once outbox delivery.
    static let rememberedEvents = 4096

    private struct Entry {
        var channel: TrackingChannel
        var riderId: UUID
        var startedAt: Date
        var touchedAt: Date
        var subscribers: [UUID: Follower] = [:]
        /// Messages made under the lock that wait for their followers, oldest first, and whether a thread is
        /// handing them out: changes made at once on two threads must still reach a socket in seq order.
        var handoffs: [Handoff] = []
        var handingOff = false
    }

    /// An order's messages and the followers it had when they were made.
    private struct Handoff {
        let messages: [TrackingMessage]
        let followers: [(UUID, Follower)]
    }

    /// Someone following an order: takes each message (false: too slow, and dropped) and hears when the feed ends.
    /// A socket takes messages straight into its own queue, with no task of its own in between.
    struct Follower: Sendable {
        var take: @Sendable (Delivery) -> Bool
        var end: @Sendable () -> Void
    }

    /// A message with its JSON, written once for all of an order's followers: written per follower, the text was
    /// built again for each customer socket, and copied into a buffer of its own for each.
    struct Delivery: Sendable {
        let message: TrackingMessage
        let frame: ByteBuffer

        init(_ message: TrackingMessage) {
            self.message = message
            frame = ByteBuffer(string: message.jsonText)
        }
    }

    private struct State {
        var entries: [UUID: Entry] = [:]
        /// The tracked orders each rider is delivering (several on a batched trip), to route a fix to every one of
        /// them without asking the database.
        var ordersOfRider: [UUID: [UUID]] = [:]
        var watchers: [UUID: @Sendable (String) -> Void] = [:]
        var inboxes: [UUID: [UUID: @Sendable (String) -> Void]] = [:]
        var recentEvents: Set<UUID> = []
        var recentEventOrder: [UUID] = []
    }

    private let state = Mutex(State())
    private let staleAfterSeconds: TimeInterval

    public init(staleAfterSeconds: TimeInterval = TrackingChannel.defaultStaleAfterSeconds) {
        self.staleAfterSeconds = staleAfterSeconds
    }

    /// The order's channel, created from the store's view the first time anyone asks.
    public func channel(
        orderId: UUID, riderId: UUID, status: OrderStatus, lastFix: TrackedPosition?, now: Date
    ) -> TrackingChannel {
        state.withLock { state in
            if var entry = state.entries[orderId] {
                entry.touchedAt = now
                state.entries[orderId] = entry
                return entry.channel
            }
            let channel = TrackingChannel(status: status, lastFix: lastFix, staleAfterSeconds: staleAfterSeconds)
            state.entries[orderId] = Entry(channel: channel, riderId: riderId, startedAt: now, touchedAt: now)
            if !(state.ordersOfRider[riderId]?.contains(orderId) ?? false) {
                state.ordersOfRider[riderId, default: []].append(orderId)
            }
            return channel
        }
    }

    /// Follows an order: messages after the channel's current `seq`, until the stream ends.
    public func subscribe(orderId: UUID) -> (seq: Int, messages: AsyncStream<TrackingMessage>)? {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TrackingMessage.self, bufferingPolicy: .bufferingOldest(Self.subscriberBuffer))
        let follower = Follower(
            take: { delivery in
                if case .dropped = continuation.yield(delivery.message) { return false }
                return true
            }, end: { continuation.finish() })
        guard let (seq, subscriber) = follow(orderId: orderId, follower) else { return nil }
        continuation.onTermination = { [weak self] _ in self?.unfollow(orderId: orderId, subscriber: subscriber) }
        return (seq, stream)
    }

    /// Follows an order with messages after the channel's current `seq`, until `unfollow`; nil when the order has
    /// no channel here.
    func follow(orderId: UUID, _ follower: Follower) -> (seq: Int, subscriber: UUID)? {
        let subscriber = UUID()
        return state.withLock { state -> (Int, UUID)? in
            guard state.entries[orderId] != nil else { return nil }
            state.entries[orderId]!.subscribers[subscriber] = follower
            return (state.entries[orderId]!.channel.seq, subscriber)
        }
    }

    func unfollow(orderId: UUID, subscriber: UUID) {
        state.withLock { _ = $0.entries[orderId]?.subscribers.removeValue(forKey: subscriber) }
    }

    /// Everything, as ready-to-send JSON, to `deliver` until `stopWatching`: every rider's fixes and every order
    /// event (dispatchers' stream).
    func watchEverything(_ deliver: @escaping @Sendable (String) -> Void) -> UUID {
        let watcher = UUID()
        state.withLock { $0.watchers[watcher] = deliver }
        return watcher
    }

    func stopWatching(_ watcher: UUID) {
        _ = state.withLock { $0.watchers.removeValue(forKey: watcher) }
    }

    /// Hands messages addressed to one person (`notice` updates) to `deliver` as they come, until `stopReceiving`.
    func receive(for recipientId: UUID, _ deliver: @escaping @Sendable (String) -> Void) -> UUID {
        let reader = UUID()
        state.withLock { $0.inboxes[recipientId, default: [:]][reader] = deliver }
        return reader
    }

    func stopReceiving(for recipientId: UUID, reader: UUID) {
        state.withLock { state in
            state.inboxes[recipientId]?.removeValue(forKey: reader)
            if state.inboxes[recipientId]?.isEmpty == true { state.inboxes.removeValue(forKey: recipientId) }
        }
    }

    /// The replay for a reconnecting client.
    public func replay(orderId: UUID, after seq: Int, stream: String? = nil) -> TrackingChannel.Replay? {
        state.withLock { $0.entries[orderId]?.channel.replay(after: seq, stream: stream) }
    }

    /// Applies updates from this or another instance.
    func apply(_ updates: [TrackingUpdate]) {
        for update in updates {
            switch update {
            case .fix(let riderId, let fix):
                broadcast(DispatchMessage.riderLocation(riderId: riderId, fix: fix))
                guard let orderIds = state.withLock({ $0.ordersOfRider[riderId] }) else { continue }
                for orderId in orderIds {
                    change(orderId) { entry in
                        guard entry.riderId == riderId else { return [] }
                        return entry.channel.record(fix.trackedPosition).map { [$0] } ?? []
                    }
                }
            case .event(let notice):
                guard rememberEvent(notice.id) else { continue }
                broadcast(DispatchMessage.event(json: notice.json))
                guard let status = notice.status else { continue }
                change(notice.orderId) { entry in entry.channel.statusChanged(to: status, at: notice.occurredAt) }
            case .notice(let recipientId, let message):
                for deliver in state.withLock({ Array(($0.inboxes[recipientId] ?? [:]).values) }) {
                    deliver(message)
                }
            }
        }
    }

    /// Sends `stale` where no fix came for the stale threshold (15 s by default), and forgets channels nobody needs any more.
    public func sweep(now: Date) {
        let ids = state.withLock { state in
            state.entries = state.entries.filter { _, entry in
                let lifetime = entry.channel.hasEnded ? Self.endedLifetime : Self.idleLifetime
                return !entry.subscribers.isEmpty || now.timeIntervalSince(entry.touchedAt) < lifetime
            }
            var kept: [UUID: [UUID]] = [:]
            for (riderId, orderIds) in state.ordersOfRider {
                let live = orderIds.filter { state.entries[$0]?.riderId == riderId }
                if !live.isEmpty { kept[riderId] = live }
            }
            state.ordersOfRider = kept
            return Array(state.entries.keys)
        }
        for id in ids {
            change(id) { entry in entry.channel.checkStale(now: now, since: entry.startedAt).map { [$0] } ?? [] }
        }
    }

    private func rememberEvent(_ id: UUID) -> Bool {
        state.withLock { state in
            guard state.recentEvents.insert(id).inserted else { return false }
            state.recentEventOrder.append(id)
            if state.recentEventOrder.count > Self.rememberedEvents {
                state.recentEvents.remove(state.recentEventOrder.removeFirst())
            }
            return true
        }
    }

    private func broadcast(_ message: @autoclosure () -> String) {
        let watchers = state.withLock { Array($0.watchers.values) }
        guard !watchers.isEmpty else { return }
        let text = message()
        for deliver in watchers { deliver(text) }
    }

    /// Applies a change under the lock, then delivers its messages outside it. A socket drops a message whose seq
    /// is not above the last it sent, so one thread at a time hands an order's messages out, in the order they
    /// were made: a sweep's `stale` and a fix's `location` made at once otherwise raced to the socket's loop.
    private func change(_ orderId: UUID, _ body: (inout Entry) -> [TrackingMessage]) {
        let handsOff = state.withLock { state -> Bool in
            // In place: an entry copied out and back shared the channel's history with the dictionary, so every
            // fix copied the whole history before appending to it.
            guard state.entries[orderId] != nil else { return false }
            let messages = body(&state.entries[orderId]!)
            guard !messages.isEmpty, !state.entries[orderId]!.subscribers.isEmpty else { return false }
            state.entries[orderId]!.handoffs.append(
                Handoff(messages: messages, followers: Array(state.entries[orderId]!.subscribers)))
            guard !state.entries[orderId]!.handingOff else { return false }
            state.entries[orderId]!.handingOff = true
            return true
        }
        guard handsOff else { return }
        while let handoff = nextHandoff(orderId) { deliver(handoff, orderId: orderId) }
    }

    /// The order's oldest waiting hand-off, or nil (and no one handing off) when none is left.
    private func nextHandoff(_ orderId: UUID) -> Handoff? {
        state.withLock { state in
            guard state.entries[orderId] != nil else { return nil }
            guard !state.entries[orderId]!.handoffs.isEmpty else {
                state.entries[orderId]!.handingOff = false
                return nil
            }
            return state.entries[orderId]!.handoffs.removeFirst()
        }
    }

    private func deliver(_ handoff: Handoff, orderId: UUID) {
        let deliveries = handoff.messages.map(Delivery.init)
        let ends = handoff.messages.contains { if case .ended = $0 { true } else { false } }
        for (id, follower) in handoff.followers {
            for delivery in deliveries {
                guard follower.take(delivery) else {
                    // Too slow: disconnect rather than hold messages (or anyone else) back.
                    follower.end()
                    unfollow(orderId: orderId, subscriber: id)
                    break
                }
            }
            if ends { follower.end() }
        }
    }
}
