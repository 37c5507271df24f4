import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// A server's connection setup with the `SlowClientGuard` in front of HTTP on every connection, and with TLS in
/// front of the guard when the server speaks HTTPS: the guard reads plain HTTP either way.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let limits: ConnectionLimits
    let registry: ConnectionRegistry
    let tls: TLSIdentity?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let added = channel.eventLoop.makeCompletedFuture {
            var handlers: [any ChannelHandler] = []
            // The context is read per connection, so one accepted after a reload gets the new certificate.
            if let tls { handlers.append(NIOSSLServerHandler(context: tls.context)) }
            handlers.append(SlowClientGuard(limits: limits, registry: registry))
            try channel.pipeline.syncOperations.addHandlers(handlers, position: .first)
        }
        return added.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
