import Foundation
import LogisticsCore
import Synchronization

/// The live-tracking state of every order followed on this instance, and the streams of the clients following
/// them. Channels change under one short lock; messages are handed to subscribers' bounded buffers after the lock
/// is released, and a subscriber whose buffer overflows is cut off instead of slowing the others.
public final class TrackingHub: Sendable {
    /// Messages a subscriber may have queued before it counts as too slow.
    static let subscriberBuffer = 64
    /// Channels nobody follows are dropped after this long, ended ones sooner.
    static let idleLifetime: TimeInterval = 600
    static let endedLifetime: TimeInterval = 60

    private struct Entry {
        var channel: TrackingChannel
        var startedAt: Date
        var touchedAt: Date
        var subscribers: [UUID: AsyncStream<TrackingMessage>.Continuation] = [:]
    }

    private let entries = Mutex<[UUID: Entry]>([:])

    public init() {}

    /// The order's channel, created from the store's view the first time anyone asks.
    public func channel(
        orderId: UUID, status: OrderStatus, lastFix: TrackedPosition?, now: Date
    ) -> TrackingChannel {
        entries.withLock { entries in
            if var entry = entries[orderId] {
                entry.touchedAt = now
                entries[orderId] = entry
                return entry.channel
            }
            let channel = TrackingChannel(status: status, lastFix: lastFix)
            entries[orderId] = Entry(channel: channel, startedAt: now, touchedAt: now)
            return channel
        }
    }

    /// Follows an order: messages after the channel's current `seq`, until the stream ends.
    public func subscribe(orderId: UUID) -> (seq: Int, messages: AsyncStream<TrackingMessage>)? {
        let subscriber = UUID()
        let (stream, continuation) = AsyncStream.makeStream(
            of: TrackingMessage.self, bufferingPolicy: .bufferingOldest(Self.subscriberBuffer))
        let seq = entries.withLock { entries -> Int? in
            guard entries[orderId] != nil else { return nil }
            entries[orderId]!.subscribers[subscriber] = continuation
            return entries[orderId]!.channel.seq
        }
        guard let seq else { return nil }
        continuation.onTermination = { [weak self] _ in
            self?.entries.withLock { _ = $0[orderId]?.subscribers.removeValue(forKey: subscriber) }
        }
        return (seq, stream)
    }

    /// The replay for a reconnecting client.
    public func replay(orderId: UUID, after seq: Int) -> TrackingChannel.Replay? {
        entries.withLock { $0[orderId]?.channel.replay(after: seq) }
    }

    /// A rider fix for the order the rider is delivering.
    public func record(orderId: UUID, fix: TrackedPosition) {
        change(orderId) { entry in entry.channel.record(fix).map { [$0] } ?? [] }
    }

    public func statusChanged(orderId: UUID, to status: OrderStatus, at occurredAt: Date) {
        change(orderId) { entry in entry.channel.statusChanged(to: status, at: occurredAt) }
    }

    /// Sends `stale` where no fix came for 15 s, and forgets channels nobody needs any more.
    public func sweep(now: Date) {
        let ids = entries.withLock { entries in
            entries = entries.filter { _, entry in
                let lifetime = entry.channel.hasEnded ? Self.endedLifetime : Self.idleLifetime
                return !entry.subscribers.isEmpty || now.timeIntervalSince(entry.touchedAt) < lifetime
            }
            return Array(entries.keys)
        }
        for id in ids {
            change(id) { entry in entry.channel.checkStale(now: now, since: entry.startedAt).map { [$0] } ?? [] }
        }
    }

    /// Applies a change under the lock, then delivers its messages outside it.
    private func change(_ orderId: UUID, _ body: (inout Entry) -> [TrackingMessage]) {
        let (messages, subscribers) = entries.withLock {
            entries -> ([TrackingMessage], [(UUID, AsyncStream<TrackingMessage>.Continuation)]) in
            guard var entry = entries[orderId] else { return ([], []) }
            let messages = body(&entry)
            entries[orderId] = entry
            return (messages, messages.isEmpty ? [] : Array(entry.subscribers))
        }
        for (id, continuation) in subscribers {
            for message in messages {
                if case .dropped = continuation.yield(message) {
                    // Too slow: disconnect rather than hold messages (or anyone else) back.
                    continuation.finish()
                    entries.withLock { _ = $0[orderId]?.subscribers.removeValue(forKey: id) }
                    break
                }
            }
            if messages.contains(where: { if case .ended = $0 { true } else { false } }) { continuation.finish() }
        }
    }
}
