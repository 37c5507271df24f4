import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// One webhook POST on a connection of its own to an address that was checked: the name is resolved once, every
/// address it has is checked, and the connection goes to the first of them. An HTTP client resolving the name
/// again would let a name that answers with a public address for the check and a private one for the connection
/// (DNS rebinding) reach into our network. TLS sends the name as SNI and checks the certificate against it (NIOSSL
/// also accepts a certificate for the very address connected to, which was checked).
struct WebhookConnection: Sendable {
    struct Response: Sendable {
        var status: HTTPResponseStatus
        var headers: HTTPHeaders
        var body: ByteBuffer
    }

    /// The name's addresses, with the port; one lookup per attempt.
    typealias Resolver = @Sendable (_ host: String, _ port: Int) async throws -> [SocketAddress]

    /// A target the checks refused: not retried.
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    /// The TLS context for https receivers: made on the first https call (most servers never make one), then kept.
    private let tls: WebhookTLS
    let resolve: Resolver
    let allowPrivateAddresses: Bool
    /// What is kept of a receiver's answer: its error document is small, and a misbehaving one must not fill memory.
    static let bodyLimit = 64 * 1024

    init(
        allowPrivateAddresses: Bool, trusting extraRoots: [NIOSSLCertificate] = [],
        resolve: @escaping Resolver = WebhookConnection.systemResolve
    ) {
        tls = WebhookTLS(extraRoots: extraRoots)
        self.resolve = resolve
        self.allowPrivateAddresses = allowPrivateAddresses
    }

    func post(
        _ target: String, headers: [(String, String)], body: [UInt8], timeout: TimeAmount = .seconds(15)
    ) async throws -> Response {
        guard let url = URL(string: target), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let rawHost = url.host, !rawHost.isEmpty
        else { throw Refused(description: "\(target.prefix(200)) is not an http(s) URL") }
        let host = rawHost.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let secure = scheme == "https"
        let port = url.port ?? (secure ? 443 : 80)
        let addresses = try await resolve(host, port)
        guard let address = addresses.first else { throw Refused(description: "\(host) has no address") }
        if !allowPrivateAddresses,
            let privateOne = addresses.first(where: { WebhookAddress.isPrivate(address: Self.bytes(of: $0)) })
        {
            throw Refused(description: "\(host) resolves to the private address \(privateOne.ipAddress ?? "?")")
        }
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
        let defaultPort = port == (secure ? 443 : 80)
        let hostHeader = (host.contains(":") ? "[\(host)]" : host) + (defaultPort ? "" : ":\(port)")
        head.headers.add(name: "host", value: hostHeader)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        head.headers.add(name: "content-length", value: String(body.count))
        head.headers.add(name: "connection", value: "close")
        let serverName = secure && WebhookAddress.numericAddress(host) == nil ? host : nil
        let (tls, request) = (secure ? try self.tls.context() : nil, head)
        return try await withThrowingTaskGroup(of: Response.self) { group in
            group.addTask {
                try await Self.exchange(
                    address: address, tls: tls, serverName: serverName, head: request, body: body, timeout: timeout)
            }
            group.addTask {
                try await Task.sleep(for: .nanoseconds(timeout.nanoseconds))
                throw ChannelError.connectTimeout(timeout)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private static func exchange(
        address: SocketAddress, tls: NIOSSLContext?, serverName: String?, head: HTTPRequestHead, body: [UInt8],
        timeout: TimeAmount
    ) async throws -> Response {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .connect(to: address) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tls, serverHostname: serverName))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        return try await withTaskCancellationHandler {
            try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(.head(head))
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
                try await outbound.write(.end(nil))
                var response: Response?
                for try await part in inbound {
                    switch part {
                    case .head(let head):
                        response = Response(status: head.status, headers: head.headers, body: ByteBuffer())
                    case .body(var chunk):
                        let room = bodyLimit - (response?.body.readableBytes ?? 0)
                        if room > 0, let bytes = chunk.readSlice(length: min(room, chunk.readableBytes)) {
                            response?.body.writeImmutableBuffer(bytes)
                        }
                    case .end:
                        if let response { return response }
                    }
                }
                throw ChannelError.eof
            }
        } onCancel: {
            channel.channel.close(promise: nil)
        }
    }

    /// The system resolver, off the event loops (getaddrinfo blocks).
    static func systemResolve(_ host: String, _ port: Int) async throws -> [SocketAddress] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
                throw WebhookAddress.UnresolvedHost(host: host)
            }
            defer { freeaddrinfo(first) }
            var addresses: [SocketAddress] = []
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let current = entry {
                if let raw = current.pointee.ai_addr {
                    switch current.pointee.ai_family {
                    case AF_INET:
                        raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                            addresses.append(SocketAddress($0.pointee, host: host))
                        }
                    case AF_INET6:
                        raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                            addresses.append(SocketAddress($0.pointee, host: host))
                        }
                    default: break
                    }
                }
                entry = current.pointee.ai_next
            }
            return addresses
        }
    }

    /// An address's bytes in network order: 4 for IPv4, 16 for IPv6.
    static func bytes(of address: SocketAddress) -> [UInt8] {
        switch address {
        case .v4(let v4):
            var raw = v4.address.sin_addr
            return withUnsafeBytes(of: &raw) { Array($0) }
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            return withUnsafeBytes(of: &raw) { Array($0) }
        default:
            return []
        }
    }
}

/// The webhook client's TLS context, made once when first needed.
final class WebhookTLS: Sendable {
    private let extraRoots: [NIOSSLCertificate]
    private let made = Mutex<NIOSSLContext?>(nil)

    init(extraRoots: [NIOSSLCertificate]) { self.extraRoots = extraRoots }

    func context() throws -> NIOSSLContext {
        try made.withLock { made in
            if let made { return made }
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.minimumTLSVersion = .tlsv12
            if !extraRoots.isEmpty { configuration.additionalTrustRoots = [.certificates(extraRoots)] }
            let context = try NIOSSLContext(configuration: configuration)
            made = context
            return context
        }
    }
}
