import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// 429 RATE_LIMITED with Retry-After, per client address, per caller and per rider's fixes; others unaffected.
@Suite("Rate limits", .timeLimit(.minutes(3)))
struct RateLimitTests {
    static func expectLimited(_ reply: Reply, _ what: String) {
        #expect(reply.status == 429, "\(what): \(reply.text)")
        #expect(reply.code == "RATE_LIMITED", "\(what)")
        #expect(reply.contentType == "application/problem+json", "\(what)")
        #expect(Int(reply.headers[.retryAfter] ?? "") ?? 0 >= 1, "\(what): Retry-After")
    }

    @Test("one client address over its limit gets 429 with Retry-After, even without a token; time refills it")
    func perAddress() async throws {
        // Live: the limit counts the peer's address, which only a real connection has.
        try await TestServer.run(
            .sqlite,
            mode: .live,
            configure: {
                $0.rateLimits = .off; $0.rateLimits.perAddress = RateRule(perSecond: 1, burst: 5)
            }
        ) { server in
            for _ in 0..<5 { #expect(try await server.send(.get, "/health/live").status == 200) }
            Self.expectLimited(try await server.send(.get, "/health/live"), "the sixth request")
            Self.expectLimited(try await server.send(.get, "/api/v1/orders"), "an API call from the same address")
            server.clock.advance(by: 2)
            #expect(try await server.send(.get, "/health/live").status == 200, "refilled after 2 s")
        }
    }

    @Test("behind a trusted proxy each X-Forwarded-For client has its own allowance; from others the header is ignored")
    func forwardedClients() async throws {
        for trusted in [true, false] {
            // Live: whether the proxy is trusted depends on the peer's address (127.0.0.1).
            try await TestServer.run(
                .sqlite,
                mode: .live,
                configure: {
                    $0.rateLimits = .off
                    $0.rateLimits.perAddress = RateRule(perSecond: 1, burst: 2)
                    $0.trustedProxies = trusted ? ["127.0.0.1"] : []
                }
            ) { server in
                for client in ["203.0.113.7", "203.0.113.8"] {
                    for attempt in 0..<2 {
                        let reply = try await server.send(
                            .get, "/health/live", headers: ["X-Forwarded-For": "198.51.100.1, \(client)"])
                        let expected = trusted || (client == "203.0.113.7") ? 200 : 429
                        #expect(reply.status == expected, "trusted \(trusted), \(client), attempt \(attempt)")
                    }
                }
            }
        }
    }

    @Test("one caller over its limit gets 429; another caller is not held back")
    func perCaller() async throws {
        try await TestServer.run(
            .sqlite,
            configure: {
                $0.rateLimits = .off; $0.rateLimits.perCaller = RateRule(perSecond: 1, burst: 3)
            }
        ) { server in
            let greedy = try await server.token(.dispatcher)
            let other = try await server.token(.dispatcher)
            for _ in 0..<3 { #expect(try await server.send(.get, "/api/v1/orders", token: greedy).status == 200) }
            let refused = try await server.send(.post, "/api/v1/orders", token: greedy, json: Fixtures.order())
            Self.expectLimited(refused, "the fourth call")
            #expect(try await server.count("orders") == 0, "a refused call changes nothing")
            #expect(try await server.send(.get, "/api/v1/orders", token: other).status == 200)
        }
    }

    @Test(
        "a rider's fixes are counted one by one; a batch larger than the burst is refused whole",
        arguments: [true, false])
    func fixesPerRider(overSocket: Bool) async throws {
        try await TestServer.run(
            .sqlite,
            mode: overSocket ? .live : .router,  // the socket needs a port
            configure: {
                $0.rateLimits = .off; $0.rateLimits.fixesPerRider = RateRule(perSecond: 1, burst: 10)
            }
        ) { server in
            let rider = try await server.token(.rider)
            func fixes(_ count: Int, offset: Int) -> [[String: Any]] {
                (0..<count).map { index in
                    [
                        "lat": 43.7380, "lon": 7.4262, "accuracyM": 5,
                        "recordedAt": RFC3339.string(
                            from: server.clock.now().addingTimeInterval(Double(offset + index - 60))),
                    ]
                }
            }
            if overSocket {
                let socket = TrackingFollower(port: server.port, path: RiderStreamSocket.path, token: rider)
                try await socket.wait { $0.contains { $0["type"] as? String == "ready" } }
                let batch = try JSONSerialization.data(withJSONObject: [
                    "type": "locations", "ref": "a", "fixes": fixes(8, offset: 0),
                ])
                socket.send(String(decoding: batch, as: UTF8.self))
                let again = try JSONSerialization.data(withJSONObject: [
                    "type": "locations", "ref": "b", "fixes": fixes(8, offset: 8),
                ])
                socket.send(String(decoding: again, as: UTF8.self))
                try await socket.wait { messages in
                    messages.contains { $0["type"] as? String == "ack" && $0["ref"] as? String == "a" }
                        && messages.contains {
                            $0["type"] as? String == "error" && $0["ref"] as? String == "b"
                                && ($0["problem"] as? [String: Any])?["code"] as? String == "RATE_LIMITED"
                        }
                }
            } else {
                let first = try await server.send(
                    .post, "/api/v1/rider/locations", token: rider, json: ["fixes": fixes(8, offset: 0)])
                #expect(first.status == 202)
                let stored = try await server.count("rider_locations")
                let second = try await server.send(
                    .post, "/api/v1/rider/locations", token: rider, json: ["fixes": fixes(8, offset: 8)])
                Self.expectLimited(second, "8 more fixes with 2 left")
                let huge = try await server.send(
                    .post, "/api/v1/rider/locations", token: rider, json: ["fixes": fixes(20, offset: 20)])
                Self.expectLimited(huge, "a batch larger than the burst")
                #expect(try await server.count("rider_locations") == stored, "refused fixes are not stored")
            }
        }
    }

    @Test("a flood from more addresses than the table holds keeps it bounded, and limits still apply")
    func boundedTable() throws {
        let limiter = RateLimiter(RateRule(perSecond: 1, burst: 1), what: "requests")
        let now = Date()
        for index in 0...RateLimiter.maximumKeys { try limiter.take("198.51.\(index / 256).\(index % 256)", now: now) }
        #expect(limiter.trackedKeys <= RateLimiter.maximumKeys)
        try limiter.take("203.0.113.9", now: now)
        #expect(throws: LogisticsError.self) { try limiter.take("203.0.113.9", now: now) }
    }

    @Test("a flood of fresh addresses forgets the least recently used ones, never the buckets of clients in use")
    func floodKeepsActiveBuckets() throws {
        let limiter = RateLimiter(RateRule(perSecond: 0.001, burst: 1), what: "requests")
        let now = Date()
        try limiter.take("203.0.113.9", now: now)
        for index in 0...(2 * RateLimiter.maximumKeys) {
            // The active client keeps asking (and is refused) while 200,000 one-off addresses come by.
            if index % 1_000 == 0 {
                #expect(throws: LogisticsError.self) { try limiter.take("203.0.113.9", now: now) }
            }
            try limiter.take("10.\(index / 65_536).\(index / 256 % 256).\(index % 256)", now: now)
        }
        #expect(limiter.trackedKeys <= RateLimiter.maximumKeys)
        #expect(throws: LogisticsError.self) { try limiter.take("203.0.113.9", now: now) }
    }

    @Test("IPv6 addresses are limited by their /64; an IPv4-mapped address is its IPv4 address")
    func ipv6Prefixes() throws {
        #expect(ClientAddress.key("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(ClientAddress.key("2001:0db8:0001:0002:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64")
        #expect(ClientAddress.key("2001:db8:1:3::1") == "2001:db8:1:3::/64")
        #expect(ClientAddress.key("::ffff:198.51.100.7") == "198.51.100.7")
        #expect(ClientAddress.key("198.51.100.7") == "198.51.100.7")
        #expect(ClientAddress.key("unknown") == "unknown")

        let limiter = RateLimiter(RateRule(perSecond: 0.001, burst: 2), what: "requests")
        let now = Date()
        try limiter.take(ClientAddress.key("2001:db8:1:2::1"), now: now)
        try limiter.take(ClientAddress.key("2001:db8:1:2::2"), now: now)
        #expect(throws: LogisticsError.self) { try limiter.take(ClientAddress.key("2001:db8:1:2:9::3"), now: now) }
        try limiter.take(ClientAddress.key("2001:db8:1:3::1"), now: now)

        let connections = ConnectionRegistry(limit: 3, exempt: ["2001:db8:1:2::99"])
        #expect((1...3).allSatisfy { connections.admit("2001:db8:1:2::\($0)") })
        #expect(!connections.admit("2001:db8:1:2:abcd::1"))
        #expect(connections.admit("2001:db8:1:2::99"), "a trusted proxy is exempt by its own address")
        connections.release("2001:db8:1:2::1")
        #expect(connections.admit("2001:db8:1:2:abcd::1"))
    }

    @Test("limit settings: RATE/BURST or off; anything else stops the server at start with a readable reason")
    func settings() throws {
        let configured = try ServerConfiguration.fromEnvironment([
            "LOGISTICS_RATE_LIMIT_ADDRESS": "off", "LOGISTICS_RATE_LIMIT_CALLER": "5/20",
            "LOGISTICS_TRUSTED_PROXIES": "127.0.0.1, ::1",
        ])
        #expect(configured.rateLimits.perAddress == nil)
        #expect(configured.rateLimits.perCaller == RateRule(perSecond: 5, burst: 20))
        #expect(configured.rateLimits.fixesPerRider == RateLimits().fixesPerRider)
        #expect(configured.trustedProxies == ["127.0.0.1", "::1"])
        for bad in ["fast", "5", "0/10", "5/0", "-1/5", "inf/5"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ServerConfiguration.fromEnvironment(["LOGISTICS_RATE_LIMIT_FIXES": bad])
            }
        }
    }
}
