import Foundation
import LogisticsCore
import RiderKit
import RiderKitURLSession
import Synchronization
import Testing

@testable import TestSupport

/// RiderKit against the real server: the offline queue, the accept retry and the arrival check.
@Suite("RiderKit: offline queue, accept retry, arrival check", .timeLimit(.minutes(3)))
struct RiderKitTests {
    struct Phone {
        let session: RiderSession
        let transport: FlakyTransport
        let file: URL
    }

    /// The two ways RiderKit reaches the server: SwiftNIO (servers, the simulator) and URLSession (phones).
    enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case asyncHTTPClient, urlSession
        var testDescription: String { rawValue }
        func make() -> any RiderTransport {
            switch self {
            case .asyncHTTPClient: HTTPRiderTransport()
            case .urlSession: URLSessionRiderTransport()
            }
        }
    }

    /// A rider's phone talking to the test server over a breakable network; the queue lives in `file`.
    static func phone(
        _ server: TestServer, token: String, file: URL? = nil, over transport: Transport = .asyncHTTPClient
    ) throws -> Phone {
        let transport = FlakyTransport(real: transport.make())
        let api = RiderAPI(baseURL: "http://127.0.0.1:\(server.port)", token: { token }, transport: transport)
        let file =
            file ?? FileManager.default.temporaryDirectory.appendingPathComponent("riderkit-\(UUID())/queue.json")
        let queue = try ActionQueue(
            api: api, file: file, backoff: RetryPolicy(base: 0.05, cap: 0.2, budget: .infinity))
        return Phone(session: RiderSession(api: api, queue: queue), transport: transport, file: file)
    }

    static let store = GeoPoint(lat: 43.7347, lon: 7.4240, accuracyM: 5)

    /// The order's DeliveryStatusUpdated events as (status, occurredAt).
    /// Through the store by taps on the phone: the task as the app has it, on the way to the customer.
    static func pickedUp(_ phone: Phone, _ taskId: String) async throws -> RiderTask {
        try await phone.session.tap(.arrivedAtStore, taskId: taskId, at: store)
        try await phone.session.tap(.pickedUp, taskId: taskId, at: store)
        return try #require(try await phone.session.api.activeTask())
    }

    static func statusEvents(_ scenario: DeliveryScenario) async throws -> [(String, Date)] {
        let log = try await scenario.server.send(
            .get, "/api/v1/orders/\(scenario.orderId)/events", token: scenario.dispatcher)
        return (log["events"] as? [[String: Any]] ?? []).compactMap { event in
            guard event["type"] as? String == "DeliveryStatusUpdated", let status = event["status"] as? String,
                let at = (event["occurredAt"] as? String).flatMap(RFC3339.date(from:))
            else { return nil }
            return (status, at)
        }
    }

    @Test(
        "taps made offline reach the server in order with their tap times once the network returns",
        arguments: StoreKind.available, Transport.allCases)
    func offlineTaps(kind: StoreKind, transport: Transport) async throws {
        try await TestServer.run(kind, mode: .live) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            let phone = try Self.phone(server, token: rider, over: transport)
            let states = StateLog()
            await phone.session.queue.observe { states.append($0) }
            phone.transport.offline = true
            server.clock.advance(by: 600)  // the taps come after the accept, and are sent later still
            let tapped = [server.clock.now().addingTimeInterval(-120), server.clock.now().addingTimeInterval(-60)]
            let sending = Task {
                try await phone.session.tap(.arrivedAtStore, taskId: taskId, at: Self.store, now: tapped[0])
            }
            try await states.wait { $0.contains(.retrying(message: "No connection, retrying...", attempt: 2)) }
            // A second tap while the first is still waiting: recorded, sent after it.
            try await phone.session.tap(.pickedUp, taskId: taskId, at: Self.store, now: tapped[1])
            #expect(await phone.session.queue.pending.count == 2)
            #expect(try await Self.statusEvents(scenario).isEmpty)

            phone.transport.offline = false
            #expect(try await sending.value == .idle)
            #expect(await phone.session.queue.pending.isEmpty)
            let events = try await Self.statusEvents(scenario)
            #expect(events.map(\.0) == ["ARRIVED_AT_STORE", "PICKED_UP"])
            #expect(events.map { $0.1.epochMillis } == tapped.map(\.epochMillis), "the tap times, not the send times")
            #expect(await phone.session.queue.lastTask?.status == .pickedUp)
        }
    }

    @Test("a queue recorded before the app was killed is sent after it starts again", arguments: StoreKind.available)
    func restartMidQueue(kind: StoreKind) async throws {
        try await TestServer.run(kind, mode: .live) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            let first = try Self.phone(server, token: rider)
            server.clock.advance(by: 600)
            let start = server.clock.now().addingTimeInterval(-300)
            for (index, status) in [TaskStatus.arrivedAtStore, .pickedUp, .arrivedAtDestination].enumerated() {
                try await first.session.queue.record(
                    RiderAction(
                        taskId: taskId, kind: .status(status, farFromDestinationConfirmed: false, reason: nil),
                        occurredAt: start.addingTimeInterval(Double(index) * 60), location: Self.store))
            }
            // The process dies here; a new one opens the same file.
            let second = try Self.phone(server, token: rider, file: first.file)
            #expect(await second.session.queue.pending.count == 3)
            let task = try #require(try await second.session.resume())
            #expect(task.taskId == taskId)
            #expect(await second.session.queue.sync() == .idle)
            #expect(
                try await Self.statusEvents(scenario).map(\.0) == [
                    "ARRIVED_AT_STORE", "PICKED_UP", "ARRIVED_AT_DESTINATION",
                ])
        }
    }

    @Test("on a batched trip RiderKit has the stops in order, and a restart keeps the taps queued for every order")
    func batchedTrip() async throws {
        try await TestServer.run(.sqlite, mode: .live, configure: TripScenario.configuration()) { server in
            let trip = try await TripScenario.onTheWay(server)
            _ = try await DeliveryScenario.ready(server, podType: "OTP", customerLat: 43.7335)
            let phone = try Self.phone(server, token: trip.rider.token)
            let offer = try #require(
                try await eventually { try await phone.session.api.offers().first }, "second order never offered")
            #expect(offer.trip?.stopCount == 4)
            #expect(offer.trip?.pickupSequence == 2)
            let second = try await phone.session.accept(offerId: offer.offerId)
            #expect(second.isBatched)
            let current = try #require(try await phone.session.resume())
            #expect(current.taskId == trip.firstTask, "the first order's store comes first")
            #expect(current.stops.map(\.kind) == [.store, .store, .customer, .customer])
            #expect(current.stops.map(\.taskId) == [trip.firstTask, second.taskId, trip.firstTask, second.taskId])
            #expect(current.stops.map(\.current) == [true, false, false, false])

            // Arrivals for both orders queued offline; the app is killed and started again before they go.
            let file = phone.file
            for taskId in [trip.firstTask, second.taskId] {
                try await phone.session.queue.record(
                    RiderAction(
                        taskId: taskId, kind: .status(.arrivedAtStore, farFromDestinationConfirmed: false, reason: nil),
                        occurredAt: server.clock.now(), location: Self.store))
            }
            let restarted = try Self.phone(server, token: trip.rider.token, file: file)
            _ = try await restarted.session.resume()
            #expect(await restarted.session.queue.pending.count == 2, "taps for the trip's other order are kept")
            #expect(await restarted.session.queue.sync() == .idle)
            let after = try #require(try await restarted.session.api.activeTask())
            #expect(Set([after.status] + after.stops.map(\.status)) == [.arrivedAtStore])
        }
    }

    @Test(
        "a photo taken offline is kept on disk, sent once the network returns, then deleted",
        arguments: StoreKind.available, Transport.allCases)
    func offlinePhoto(kind: StoreKind, transport: Transport) async throws {
        try await TestServer.run(kind, mode: .live) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let phone = try Self.phone(server, token: rider, over: transport)
            phone.transport.offline = true
            let sending = Task { try await phone.session.provePhoto(Photos.jpeg, taskId: taskId, at: Self.store) }
            try await Task.sleep(for: .milliseconds(300))
            let queued = await phone.session.queue.pending
            guard case .photo(let path) = queued.first?.kind else {
                Issue.record("the photo is not queued: \(queued)")
                return
            }
            #expect(FileManager.default.fileExists(atPath: path))
            phone.transport.loseAnswers(1)  // and the first answer is lost: the retry must not store it twice
            phone.transport.offline = false
            #expect(try await sending.value == .idle)
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try await server.count("proofs_of_delivery", "order_id = ?", [.text(scenario.orderId)]) == 1)
            let delivered = try await phone.session.tap(.delivered, taskId: taskId, at: Self.store)
            #expect(delivered == .idle)
            #expect(await phone.session.queue.lastTask?.status == .delivered)
        }
    }

    @Test("an answer lost on the way back is resent and applied once", arguments: StoreKind.available)
    func lostAnswers(kind: StoreKind) async throws {
        try await TestServer.run(kind, mode: .live) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            let phone = try Self.phone(server, token: rider)
            phone.transport.loseAnswers(2)
            #expect(try await phone.session.tap(.arrivedAtStore, taskId: taskId, at: Self.store) == .idle)
            #expect(phone.transport.requests.filter { $0.hasPrefix("PATCH") }.count == 3)
            #expect(try await Self.statusEvents(scenario).map(\.0) == ["ARRIVED_AT_STORE"])
        }
    }

    @Test(
        "a refusal the server will repeat stops the queue and is shown, not retried", arguments: StoreKind.available,
        Transport.allCases)
    func permanentRefusal(kind: StoreKind, transport: Transport) async throws {
        try await TestServer.run(kind, mode: .live) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            let phone = try Self.phone(server, token: rider, over: transport)
            try await phone.session.queue.record(
                RiderAction(
                    taskId: taskId, kind: .status(.delivered, farFromDestinationConfirmed: false, reason: nil),
                    occurredAt: server.clock.now(), location: Self.store))
            try await phone.session.queue.record(
                RiderAction(
                    taskId: taskId, kind: .status(.arrivedAtStore, farFromDestinationConfirmed: false, reason: nil),
                    occurredAt: server.clock.now(), location: Self.store))
            let state = await phone.session.queue.sync()
            guard case .blocked(let action, let problem) = state else {
                Issue.record("expected the queue to stop, got \(state)")
                return
            }
            #expect(problem.code == "INVALID_STATUS_TRANSITION")
            #expect(action.kind == .status(.delivered, farFromDestinationConfirmed: false, reason: nil))
            #expect(phone.transport.requests.filter { $0.hasPrefix("PATCH") }.count == 1)
            #expect(try await Self.statusEvents(scenario).isEmpty, "nothing behind the refused action was sent")
            try await phone.session.queue.discardBlocked()
            #expect(await phone.session.queue.sync() == .idle)
            #expect(try await Self.statusEvents(scenario).map(\.0) == ["ARRIVED_AT_STORE"])
        }
    }

    @Test("a server that never answers is a transport failure, not a hang", arguments: Transport.allCases)
    func silentServer(transport: Transport) async throws {
        // A socket that listens but never accepts: the kernel completes the connection, nobody ever answers.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 8) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let started = ContinuousClock.now
        do {
            _ = try await transport.make().send(
                RiderRequest(method: "GET", url: "http://127.0.0.1:\(port)/api/v1/rider/me"), timeout: .seconds(1))
            Issue.record("an answer came from a server that never answers")
        } catch let error as RiderAPIError {
            guard case .transport = error else {
                Issue.record("expected a transport failure, got \(error)")
                return
            }
        }
        // Without the 1 s timeout this request would never end (AsyncHTTPClient has no read timeout; URLSession's is
        // set from it). The bound tells "ends" from "hangs" only: while other suites hold both cooperative threads
        // of a 2-core machine, ending took many seconds in full runs, and a 1 s sleep beside it was no guide.
        #expect(ContinuousClock.now - started < .seconds(45))
    }

    @Test("the arrival question uses the server's configured geofence radius, sent with the task")
    func arrivalRadiusFromServer() async throws {
        try await TestServer.run(.sqlite, mode: .live, configure: { $0.delivery.geofenceRadiusM = 2_000 }) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            let phone = try Self.phone(server, token: rider)
            let task = try await Self.pickedUp(phone, taskId)
            #expect(task.geofenceRadiusM == 2_000)
            let within = GeoPoint(lat: 43.7500, lon: 7.4240, accuracyM: 5)  // 1.7 km: outside 500 m, inside 2 km
            let asked = StateLog()
            #expect(
                try await phone.session.arrive(task: task, at: within) {
                    asked.note($0); return false
                })
            #expect(asked.notes.isEmpty, "the app asks only beyond the server's radius")
            #expect(try await Self.statusEvents(scenario).last?.0 == "ARRIVED_AT_DESTINATION", "and the server agrees")
        }
    }

    @Test(
        "arriving far from the customer asks first: No sends nothing, Yes sends with the flag",
        arguments: StoreKind.available)
    func arrivalCheck(kind: StoreKind) async throws {
        try await TestServer.run(kind, mode: .live) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            let phone = try Self.phone(server, token: rider)
            let task = try await Self.pickedUp(phone, taskId)
            let far = GeoPoint(lat: 43.7500, lon: 7.4240, accuracyM: 5)  // 1.7 km north of the customer
            let questions = StateLog()
            let declined = try await phone.session.arrive(task: task, at: far) { question in
                questions.note(question)
                return false
            }
            #expect(!declined)
            #expect(questions.notes == [ArrivalCheck.question])
            #expect(ArrivalCheck.question == "You seem far from the destination. Are you sure you have arrived?")
            #expect(try await Self.statusEvents(scenario).count == 2, "No sends nothing")
            #expect(await phone.session.queue.pending.isEmpty)

            let confirmed = try await phone.session.arrive(task: task, at: far) { _ in true }
            #expect(confirmed)
            #expect(try await Self.statusEvents(scenario).last?.0 == "ARRIVED_AT_DESTINATION")
            let log = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/events", token: scenario.dispatcher)
            let arrival = (log["events"] as? [[String: Any]] ?? []).last
            #expect(arrival?["geofenceOverride"] as? Bool == true)

            // At the door nobody is asked.
            let other = try await DeliveryScenario.ready(server)
            let (_, riderB, taskB) = try await other.assigned()
            let phoneB = try Self.phone(server, token: riderB)
            let taskAtDoor = try await Self.pickedUp(phoneB, taskB)
            let asked = StateLog()
            #expect(
                try await phoneB.session.arrive(task: taskAtDoor, at: Self.store) {
                    asked.note($0); return true
                })
            #expect(asked.notes.isEmpty)
        }
    }

    @Test(
        "accept retries once when the answer is lost, then gives up; a refusal is not retried",
        arguments: StoreKind.available)
    func acceptRetry(kind: StoreKind) async throws {
        try await TestServer.run(kind, mode: .live) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let rider = try await scenario.onlineRider()
            let offers = try await scenario.offer(to: [rider.id])
            let phone = try Self.phone(server, token: rider.token)
            phone.transport.loseAnswers(1)
            let task = try await phone.session.accept(offerId: offers[rider.id]!)
            #expect(task.orderId == scenario.orderId)
            #expect(phone.transport.requests.filter { $0.contains("/accept") }.count == 2)

            let second = try await DeliveryScenario.ready(server)
            let riderB = try await second.onlineRider()
            let offersB = try await second.offer(to: [riderB.id])
            let phoneB = try Self.phone(server, token: riderB.token)
            phoneB.transport.offline = true
            await #expect(throws: RiderSession.AcceptFailed.self) {
                try await phoneB.session.accept(offerId: offersB[riderB.id]!)
            }
            #expect(phoneB.transport.requests.count == 2, "exactly one automatic retry")

            phoneB.transport.offline = false
            server.clock.advance(by: 3600)  // the offer expired meanwhile
            let late = try Self.phone(server, token: try await server.token(.rider, riderB.id))
            do {
                _ = try await late.session.accept(offerId: offersB[riderB.id]!)
                Issue.record("an expired offer was accepted")
            } catch RiderAPIError.problem(let problem) {
                #expect(problem.code == "OFFER_EXPIRED")
            }
            #expect(late.transport.requests.count == 1, "a refusal is final")
        }
    }
}

/// Collects what a callback saw, for tests to wait on.
final class StateLog: Sendable {
    private let states = Mutex<[ActionQueue.State]>([])
    private let texts = Mutex<[String]>([])

    func append(_ state: ActionQueue.State) { states.withLock { $0.append(state) } }
    func note(_ text: String) { texts.withLock { $0.append(text) } }
    var notes: [String] { texts.withLock { $0 } }

    func wait(_ condition: @escaping @Sendable ([ActionQueue.State]) -> Bool) async throws {
        for _ in 0..<200 {
            if states.withLock({ condition($0) }) { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw TestServer.NoAnswer(description: "the queue never reached the expected state")
    }
}
