import Foundation
import HTTPTypes
import LogisticsServer
import Testing

@testable import TestSupport

/// Issue #20, "who sees what": every registered route, asked by each of owner A's principals, staff and nobody
/// with owner B's ids (broken object-level authorization, BOLA).
@Suite("Who sees what: every route × every role with another owner's ids", .timeLimit(.minutes(5)))
struct AccessMatrixTests {
    /// Several hundred requests from one address in a few seconds: the rate limits have their own tests.
    static func unlimited(_ configuration: inout ServerConfiguration) {
        configuration.rateLimits.perAddress = nil
        configuration.rateLimits.perCaller = nil
    }

    @Test(
        "every route has a row; A's principals get B's things refused, in a documented way, without a word of B",
        arguments: StoreKind.available)
    func everyRouteEveryRole(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: Self.unlimited) { server in
            try await Self.run(server)
        }
    }

    static func run(_ server: TestServer) async throws {
        let rows = AccessMatrix.rows
        let served = server.routes.map(\.description)
        let missing = served.filter { rows[$0] == nil }
        #expect(missing.isEmpty, "routes without a row in AccessMatrix.rows; say what each role gets: \(missing)")
        let stale = Set(rows.keys).subtracting(served).sorted()
        #expect(stale.isEmpty, "rows in AccessMatrix.rows for routes the server does not serve: \(stale)")

        let world = try await AccessWorld.build(server)
        let document = try await server.send(.get, "/openapi.json")
        let paths = try #require(document["paths"] as? [String: [String: [String: Any]]])
        let before = try await world.fingerprintOfB()
        var asked = 0
        // Staff last: they may change B's world, which the check between the two would take for A's doing.
        for phase in [Caller.allCases.filter { !$0.isStaff }, Caller.allCases.filter(\.isStaff)] {
            for caller in phase {
                for route in server.routes {
                    guard let row = rows[route.description], let expected = row.expected[caller] else { continue }
                    let documented = paths[route.path]?[route.method.lowercased()]?["responses"] as? [String: Any]
                    try await ask(route, as: caller, expecting: expected, probe: row.probe(world), world: world) {
                        documented?[String($0)] != nil
                    }
                    asked += 1
                }
            }
            if phase.contains(.rider) {
                #expect(try await world.fingerprintOfB() == before, "B's world changed while A's principals asked")
            }
        }
        #expect(asked == served.count * Caller.allCases.count)

        // Last, as it may finish A's delivery: A's rider on every route with A's own ids never gets a full phone.
        let own = world.aboutOwnThings
        for route in server.routes {
            guard let row = rows[route.description] else { continue }
            let probe = row.probe(own)
            let reply = try await world.server.send(
                try #require(HTTPRequest.Method(route.method)), probe.path, token: world.a.rider, json: probe.json,
                raw: probe.form?.body, contentType: probe.form?.contentType)
            #expect(reply.status != 500, "\(route) as A's rider with A's ids: \(reply.text.prefix(300))")
            let phones = world.fullPhones.filter { reply.text.contains($0) }
            #expect(phones.isEmpty, "\(route) as A's rider with A's ids shows \(phones)")
        }
    }

    /// One cell: the status the row expects, documented for the route, and none of B's strings in the answer.
    static func ask(
        _ route: RegisteredRoute, as caller: Caller, expecting expected: Expected, probe: Probe, world: AccessWorld,
        documented: (Int) -> Bool
    ) async throws {
        let method = try #require(HTTPRequest.Method(route.method))
        let reply: Reply
        var sent = probe.path
        if let form = probe.form {
            reply = try await world.server.send(
                method, probe.path, token: world.token(caller), raw: form.body, contentType: form.contentType)
        } else {
            if let json = probe.json {
                sent += String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
            }
            reply = try await world.server.send(method, probe.path, token: world.token(caller), json: probe.json)
        }
        let cell = "\(route) as \(caller) (expected \(expected)), got \(reply.status): \(reply.text.prefix(300))"
        switch expected {
        case .refused(let status):
            #expect(reply.status == status, "\(cell)")
            #expect(documented(reply.status), "undocumented refusal: \(cell)")
        case .own(let statuses):
            #expect(statuses.contains(reply.status), "\(cell)")
            #expect(documented(reply.status), "undocumented answer: \(cell)")
        case .staff:
            #expect(![401, 403, 500].contains(reply.status), "\(cell)")
        case .open:
            #expect(reply.status != 500, "\(cell)")
        }
        if case .staff = expected { return }
        let leaks = world.leaks(in: reply.text + "\(reply.headers)", sent: sent)
        #expect(leaks.isEmpty, "\(route) as \(caller) shows B's \(leaks)")
        if caller == .rider {
            let phones = world.fullPhones.filter { reply.text.contains($0) }
            #expect(phones.isEmpty, "\(route) as A's rider shows \(phones)")
        }
    }
}
