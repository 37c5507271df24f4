import AsyncHTTPClient
import NIOCore
import NIOPosix

/// Dispatcher sockets that never read (`bench tracking --silent N`): what a stuck or hostile client does. They
/// upgrade, then read nothing, with a small receive window, so the server's writes to them back up.
final class SilentSockets: Sendable {
    let channels: [any Channel]

    private init(channels: [any Channel]) { self.channels = channels }

    static func open(count: Int, port: Int, token: String) async throws -> SilentSockets {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.autoRead, value: false)
            .channelOption(ChannelOptions.socketOption(.so_rcvbuf), value: 1024)
        let upgrade =
            "GET /api/v1/dispatch/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Protocol: bearer, \(token)\r\n\r\n"
        var channels: [any Channel] = []
        for _ in 0..<count {
            let channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
            try await channel.writeAndFlush(channel.allocator.buffer(string: upgrade))
            channels.append(channel)
        }
        return SilentSockets(channels: channels)
    }

    /// How many of them the server cut off for falling behind, by its own count (a client cannot tell quickly:
    /// after a cut the kernel still holds what it had buffered for them).
    static func cutOffByServer(port: Int) async throws -> Int {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 4 << 20))
        let line = text.split(separator: "\n").first {
            $0.hasPrefix(#"websocket_cut_off_total{stream="dispatch",reason="behind"}"#)
        }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }

    func close() {
        for channel in channels { channel.close(promise: nil) }
    }
}
