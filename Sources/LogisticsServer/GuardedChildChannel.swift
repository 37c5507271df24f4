import HummingbirdCore
import Logging
import NIOCore

/// A server's connection setup with the `SlowClientGuard` put first on every connection.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let limits: ConnectionLimits
    let registry: ConnectionRegistry

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let added = channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
                SlowClientGuard(limits: limits, registry: registry), position: .first)
        }
        return added.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
