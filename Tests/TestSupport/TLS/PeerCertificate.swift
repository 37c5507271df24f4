import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Which certificate a TLS server presents to a new connection: the handshake accepts anything, only to look.
enum PeerCertificate {
    /// The serial of the server's certificate, lower-case hex.
    static func serial(port: Int) async throws -> String {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        let context = try NIOSSLContext(configuration: configuration)
        let seen = Seen()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(
                        context: context, serverHostname: "localhost",
                        customVerificationCallback: { chain, promise in
                            seen.record(chain.first)
                            promise.succeed(.certificateVerified)
                        })
                    try channel.pipeline.syncOperations.addHandler(handler)
                    try channel.pipeline.syncOperations.addHandler(CloseOnError())
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        defer { channel.close(promise: nil) }
        try await TestServer.answered(within: .seconds(10), "a TLS handshake on port \(port)") {
            while seen.serial == nil && channel.isActive { try await Task.sleep(for: .milliseconds(20)) }
        }
        guard let serial = seen.serial else { throw ProcessError("the server presented no certificate") }
        return serial
    }

    private final class Seen: Sendable {
        private let value = Mutex<String?>(nil)
        var serial: String? { value.withLock { $0 } }

        func record(_ certificate: NIOSSLCertificate?) {
            let serial = certificate?.serialNumber.map { String(format: "%02x", $0) }.joined()
            value.withLock { $0 = serial }
        }
    }

    /// A failed handshake ends the wait at once instead of at its deadline.
    private final class CloseOnError: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }
}
