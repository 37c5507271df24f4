import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

/// The store alone, with no HTTP in between: the acceptance transaction holds RDR-BR-001 itself when many riders
/// race on one order, and a refusal leaves every row as it was.
@Suite("The repository's acceptance transaction", .timeLimit(.minutes(3)))
struct RepositoryAcceptanceTests {
    @Test(
        "20 riders accepting one order at once: one task, 19 refusals, one assignment event",
        arguments: StoreKind.available)
    func race(kind: StoreKind) async throws {
        try await Self.withRepository(kind) { repository in
            let now = Date()
            let dispatcher = Actor(id: UUID(), role: .dispatcher)
            let order = try await Self.readyOrder(repository, by: dispatcher, now: now)
            var riders: [Actor] = []
            for index in 0..<20 {
                let rider = Actor(id: UUID(), role: .rider, name: "Rider \(index)")
                _ = try await repository.provisionRider(rider, now: now)
                _ = try await repository.setAvailability(riderId: rider.id, to: .online, now: now)
                riders.append(rider)
            }
            let offers = try await repository.makeOffers(
                orderId: order.id, to: .riders(riders.map(\.id)), ttl: 60, by: dispatcher, now: now)
            #expect(offers.count == 20)

            let outcomes = await withTaskGroup(of: Result<UUID, LogisticsError>.self) { group in
                for offer in offers {
                    let rider = riders.first { $0.id == offer.riderId }!
                    group.addTask {
                        do {
                            return .success(
                                try await repository.acceptOffer(offerId: offer.id, by: rider, now: now).0.id)
                        } catch let error as LogisticsError {
                            return .failure(error)
                        } catch {
                            return .failure(LogisticsError(.internalError, "\(error)"))
                        }
                    }
                }
                var all: [Result<UUID, LogisticsError>] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
            let winners = outcomes.compactMap { try? $0.get() }
            let refusals = outcomes.compactMap { if case .failure(let error) = $0 { error.code } else { nil } }
            #expect(winners.count == 1)
            #expect(refusals == Array(repeating: .orderAlreadyAssigned, count: 19))

            let stored = try #require(try await repository.order(id: order.id))
            #expect(stored.status == .riderAssigned)
            #expect(stored.taskId == winners.first)
            let assignments = try await repository.events(orderId: order.id).filter {
                $0.type == OrderEventType.orderAssigned
            }
            #expect(assignments.count == 1)
            let busy = try await repository.fleet(availability: .onTask, limit: 100)
            #expect(busy.count == 1)
        }
    }

    @Test("an accept that is refused changes nothing: the rider stays online and free", arguments: StoreKind.available)
    func refusalChangesNothing(kind: StoreKind) async throws {
        try await Self.withRepository(kind) { repository in
            let now = Date()
            let dispatcher = Actor(id: UUID(), role: .dispatcher)
            let order = try await Self.readyOrder(repository, by: dispatcher, now: now)
            let rider = Actor(id: UUID(), role: .rider)
            _ = try await repository.provisionRider(rider, now: now)
            _ = try await repository.setAvailability(riderId: rider.id, to: .online, now: now)
            let offer = try #require(
                try await repository.makeOffers(
                    orderId: order.id, to: .riders([rider.id]), ttl: 30, by: dispatcher, now: now
                ).first)
            let eventsBefore = try await repository.events(orderId: order.id).count

            // 31 s later the offer window has closed.
            await #expect(throws: LogisticsError.self) {
                _ = try await repository.acceptOffer(offerId: offer.id, by: rider, now: now + 31)
            }
            #expect(try await repository.order(id: order.id)?.status == .readyForPickup)
            #expect(try await repository.rider(id: rider.id)?.availability == .online)
            #expect(try await repository.rider(id: rider.id)?.activeTaskId == nil)
            #expect(try await repository.events(orderId: order.id).count == eventsBefore)
        }
    }

    static func readyOrder(_ repository: SQLLogisticsRepository, by actor: Actor, now: Date) async throws -> Order {
        var generator = SystemRandomNumberGenerator()
        let intake = OrderIntake(otp: DeliveryOTP(serverSecret: Array("repository-test-secret-0123456789".utf8)))
        let newOrder = NewOrder(
            externalRef: nil,
            vendor: VendorStop(name: "Shop", address: "1 Rue", location: GeoPoint(lat: 43.7384, lon: 7.4246)),
            customer: CustomerContact(
                id: UUID(), name: "C", phone: "+33600000001", address: "2 Rue",
                location: GeoPoint(lat: 43.7347, lon: 7.4240)),
            podType: .otp, notes: nil)
        let order = intake.makeOrder(newOrder, id: UUID(), by: actor, now: now, generator: &generator)
        _ = try await repository.createOrder(order, by: actor, now: now)
        return try await repository.markReady(orderId: order.id, by: actor, now: now)
    }

    /// A migrated repository on a fresh SQLite file, or on a PostgreSQL schema of its own; closed and removed
    /// afterwards, also when the body fails.
    static func withRepository(
        _ kind: StoreKind, _ body: (SQLLogisticsRepository) async throws -> Void
    ) async throws {
        let logger = Logger(label: "store-test")
        let database: any SQLDatabase
        let removeStorage: () async -> Void
        switch kind {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appending(path: "store-\(UUID().uuidString).sqlite").path
            database = try await StoreFactory.open(.sqlite(path: path), logger: logger)
            removeStorage = {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
        case .postgres:
            let isolated = try await IsolatedSchema.create(url: try #require(StoreKind.postgresURL))
            database = try await StoreFactory.open(
                .postgres(.init(url: isolated.url, poolSize: 8, schema: isolated.name, operationTimeout: .seconds(30))),
                logger: logger)
            removeStorage = { await isolated.drop() }
        }
        let outcome: Result<Void, any Error>
        do {
            try await Migrator(database: database, logger: logger).migrate()
            try await body(SQLLogisticsRepository(database: database, logger: logger))
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await database.close()
        await removeStorage()
        try outcome.get()
    }
}
