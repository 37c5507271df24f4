import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP client on loopback with plain system calls, for what a well-behaved client library will not do: open a
/// WebSocket and never read from it, or dribble a request a byte at a time.
final class RawSocket: @unchecked Sendable {
    let descriptor: Int32

    /// Connects to 127.0.0.1:`port`; a small `receiveBuffer` makes the kernel take little on our behalf.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawSocketError("socket() failed") }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw RawSocketError("connect() failed")
        }
    }

    deinit { close(descriptor) }

    /// Ends the connection now (the descriptor is closed when the socket goes).
    func shutdown() { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }

    func write(_ text: String) throws {
        try write(bytes: Array(text.utf8))
    }

    func write(bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw RawSocketError("send() wrote \(sent) of \(bytes.count) bytes") }
    }

    /// Reads what arrives within `timeout`, stopping at end of stream or once `until` holds for what was read.
    /// Returns the bytes and whether the peer closed. Waits with `Task.sleep`, never blocking a thread in `poll`:
    /// the cooperative pool has as few threads as cores, and an in-process server needs them to answer.
    func read(
        within timeout: Duration, until: ([UInt8]) -> Bool = { _ in false }
    ) async -> (bytes: [UInt8], closed: Bool) {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while ContinuousClock.now < deadline, !until(received) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 0) > 0 else {
                try? await Task.sleep(for: .milliseconds(10))
                continue
            }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (received, true) }
            received += buffer[..<count]
        }
        return (received, false)
    }

    /// Whether the server ended the connection, seen without reading: a close is queued behind whatever this
    /// client has not read, so only a reset (or a read) shows it.
    var isEstablished: Bool {
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return false }
        return Int32(info.tcpi_state) == Int32(TCP_ESTABLISHED)
    }

    /// Waits, reading nothing, until the connection is no longer established; false if it still is at `timeout`.
    func waitUntilEnded(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !isEstablished { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return !isEstablished
    }

    /// The WebSocket upgrade for `path` with the token as the subprotocol pair; true once the server said 101.
    func upgrade(path: String, token: String) async throws -> Bool {
        try write(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Protocol: bearer, \(token)\r\n\r\n")
        // Generous: it only ends early on failure, and a server process just started on a loaded 2-core machine
        // once took over 5 s to answer its first upgrade.
        let answer = await read(within: .seconds(15)) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        return String(decoding: answer.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 101")
    }
}

struct RawSocketError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
