import Foundation
import LogisticsCore
import LogisticsServer
import LogisticsStore

/// The demo's people and orders in Monaco. Ids are fixed so tokens printed in one run keep working
/// in the next.
enum DemoFleet {
    static let dispatcher = Actor(
        id: UUID(uuidString: "00000000-0000-4000-8000-00000000d15a")!, role: .dispatcher, name: "Dana Dispatcher")
    static let admin = Actor(
        id: UUID(uuidString: "00000000-0000-4000-8000-0000000000ad")!, role: .admin, name: "Avery Admin")
    static let vendor = Actor(
        id: UUID(uuidString: "00000000-0000-4000-8000-00000000be01")!, role: .vendor, name: "Café de Paris")
    static let riders = [
        Actor(id: UUID(uuidString: "00000000-0000-4000-8000-0000000a0001")!, role: .rider, name: "Ravi Kumar"),
        Actor(id: UUID(uuidString: "00000000-0000-4000-8000-0000000a0002")!, role: .rider, name: "Lucia Rossi"),
        Actor(id: UUID(uuidString: "00000000-0000-4000-8000-0000000a0003")!, role: .rider, name: "Marc Dubois"),
    ]
    /// Nobody simulates this rider: the demo offers them orders for a person to deliver in the rider app (`/rider`).
    static let appRider = Actor(
        id: UUID(uuidString: "00000000-0000-4000-8000-0000000a0004")!, role: .rider, name: "Asha Patel")
    static let appRiderPosition = GeoPoint(lat: 43.7392, lon: 7.4270)
    /// Where each rider is waiting: Larvotto, Port Hercule, Fontvieille.
    static let riderPositions = [
        GeoPoint(lat: 43.7445, lon: 7.4318), GeoPoint(lat: 43.7355, lon: 7.4210), GeoPoint(lat: 43.7310, lon: 7.4185),
    ]
    static let customers = [
        (
            Actor(id: UUID(uuidString: "00000000-0000-4000-8000-0000000c0001")!, role: .customer, name: "Priya Shah"),
            "+377 93 15 00 01", "Quai Antoine 1er, Port Hercule", GeoPoint(lat: 43.7340, lon: 7.4225)
        ),
        (
            Actor(id: UUID(uuidString: "00000000-0000-4000-8000-0000000c0002")!, role: .customer, name: "Jonas Berg"),
            "+377 93 15 00 02", "Avenue Princesse Grace, Monte-Carlo Beach", GeoPoint(lat: 43.7503, lon: 7.4395)
        ),
        (
            Actor(id: UUID(uuidString: "00000000-0000-4000-8000-0000000c0003")!, role: .customer, name: "Amelie Roux"),
            "+377 93 15 00 03", "Rue du Gabian, Fontvieille", GeoPoint(lat: 43.7289, lon: 7.4170)
        ),
    ]
    static let store = VendorStop(
        name: "Café de Paris", address: "Place du Casino, Monte-Carlo", location: GeoPoint(lat: 43.7396, lon: 7.4276))

    struct Seeded {
        var orders: [Order]
    }

    /// One person per role with a phone, to sign in with as a real user would (the codes are printed, not sent).
    static let signIns: [(actor: Actor, phone: String, page: String, who: String)] = [
        (dispatcher, "+37799000001", "/dispatch", "the dispatcher"),
        (appRider, "+37799000002", "/rider", "the rider (you deliver)"),
        (admin, "+37799000004", "/dispatch", "the admin"),
    ]
    /// A member of the store's staff: they sign in as the store on `/vendor`.
    static let storeStaff = (
        id: UUID(uuidString: "00000000-0000-4000-8000-00000000be11")!, name: "Sofia at Café de Paris",
        phone: "+37799000003"
    )

    /// The people and the store as records with phones; kept from an earlier run (ids are fixed).
    static func seedPeople(_ services: ServerComponents, now: Date) async throws {
        let people = services.repository
        if try await people.vendor(id: vendor.id) == nil {
            try await people.addVendor(
                Vendor(
                    id: vendor.id, name: store.name, address: store.address, location: store.location,
                    phone: "+37793150000", createdAt: now), createdBy: admin.id)
        }
        for (actor, phone, _, _) in signIns {
            if let existing = try await people.person(id: actor.id) {
                if existing.phone != phone {
                    _ = try await people.changePerson(
                        id: actor.id, roles: [actor.role], PersonChanges(phone: phone), now: now)
                }
                continue
            }
            try await people.addPerson(
                Person(
                    id: actor.id, role: actor.role, name: actor.name ?? "Demo", phone: phone,
                    vehicle: actor.role == .rider ? .motorcycle : nil, createdAt: now, updatedAt: now),
                createdBy: admin.id, invitation: nil, now: now)
        }
        if try await people.person(id: storeStaff.id) == nil {
            try await people.addPerson(
                Person(
                    id: storeStaff.id, role: .vendor, name: storeStaff.name, phone: storeStaff.phone,
                    vendorId: vendor.id, createdAt: now, updatedAt: now),
                createdBy: admin.id, invitation: nil, now: now)
        }
    }

    static func seed(_ services: ServerComponents) async throws -> Seeded {
        let now = services.clock.now()
        for (rider, position) in zip(riders, riderPositions) {
            _ = try await services.repository.provisionRider(rider, now: now)
            try await services.repository.recordFixes(
                [LocationFix(lat: position.lat, lon: position.lon, accuracyM: 8, recordedAt: now)], riderId: rider.id,
                now: now)
            do {
                _ = try await services.repository.setAvailability(riderId: rider.id, to: .online, now: now)
            } catch let error as LogisticsError where error.code == .riderHasActiveTask {
                // Still delivering from an earlier demo run: leave the rider on that task.
            }
        }
        // Left offline: going online in the app is the person's first tap.
        _ = try await services.repository.provisionRider(appRider, now: now)
        try await seedPeople(services, now: now)
        try await services.repository.recordFixes(
            [LocationFix(lat: appRiderPosition.lat, lon: appRiderPosition.lon, accuracyM: 8, recordedAt: now)],
            riderId: appRider.id, now: now)
        var generator = SystemRandomNumberGenerator()
        var orders: [Order] = []
        for (index, (customer, phone, address, location)) in customers.enumerated() {
            let request = NewOrder(
                externalRef: "DEMO-\(index + 1)", vendor: store,
                customer: CustomerContact(
                    id: customer.id, name: customer.name!, phone: phone, address: address, location: location),
                podType: index == 0 ? .otp : .photo, notes: index == 1 ? "Ring twice" : nil)
            let order = services.intake.makeOrder(request, id: UUID(), by: vendor, now: now, generator: &generator)
            var stored = try await services.repository.createOrder(order, by: vendor, now: now)
            if index < 2 { stored = try await services.repository.markReady(orderId: stored.id, by: vendor, now: now) }
            orders.append(stored)
        }
        return Seeded(orders: orders)
    }

    /// Writes the shell walkthrough (tokens as exports, then curl commands for a whole delivery) to `path`, where a
    /// person sources it; the console names the file instead of scrolling the links away.
    static func writeWalkthrough(
        _ seeded: Seeded, services: ServerComponents, base: String, curlOptions: String, to path: String
    ) async throws {
        guard let tokens = services.tokens else { return }
        let dispatcherToken = try await tokens.token(
            subject: dispatcher.id, role: .dispatcher, name: dispatcher.name, ttl: 86_400)
        let vendorToken = try await tokens.token(subject: vendor.id, role: .vendor, name: vendor.name, ttl: 86_400)
        let riderToken = try await tokens.token(subject: riders[0].id, role: .rider, name: riders[0].name, ttl: 86_400)
        let customerToken = try await tokens.token(
            subject: customers[0].0.id, role: .customer, name: customers[0].0.name, ttl: 86_400)
        let first = seeded.orders[0].id.lowercased
        let rider = riders[0].id.lowercased
        let second = seeded.orders[1].id.lowercased
        let curl = "curl -s\(curlOptions)"
        let command = DemoCommand.name
        let script = #"""
            # The Rider Logistics demo, from a shell: `. \#(path)` sets the tokens (valid 24 h), then try the commands.
            export DISPATCHER=\#(dispatcherToken)
            export VENDOR=\#(vendorToken)
            export RIDER=\#(riderToken)
            export CUSTOMER=\#(customerToken)

            # Orders, and one seen by its customer:
            #   \#(curl) \#(base)/api/v1/orders -H "Authorization: Bearer $DISPATCHER"
            #   \#(curl) \#(base)/api/v1/customer/orders/\#(first) -H "Authorization: Bearer $CUSTOMER"
            #
            # A delivery, step by step (order \#(second), rider Ravi Kumar):
            #   \#(curl) -X POST \#(base)/api/v1/orders/\#(second)/offers -H "Authorization: Bearer $DISPATCHER" \
            #     -H 'Content-Type: application/json' -d '{"riderIds":["\#(rider)"]}'
            #   OFFER_ID=$(\#(curl) \#(base)/api/v1/rider/offers -H "Authorization: Bearer $RIDER" | sed 's/.*"offerId":"\([^"]*\)".*/\1/')
            #   TASK_ID=$(\#(curl) -X POST \#(base)/api/v1/rider/offers/$OFFER_ID/accept -H "Authorization: Bearer $RIDER" | sed 's/.*"taskId":"\([^"]*\)".*/\1/')
            #   \#(curl) -X PATCH \#(base)/api/v1/rider/tasks/$TASK_ID/status -H "Authorization: Bearer $RIDER" \
            #     -H 'Content-Type: application/json' -d "{\"status\":\"ARRIVED_AT_STORE\",\"eventId\":\"$(cat /proc/sys/kernel/random/uuid)\",
            #     \"occurredAt\":\"$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)\",\"location\":{\"lat\":43.7396,\"lon\":7.4276,\"accuracyM\":5}}"
            #   \#(curl) \#(base)/api/v1/rider/tasks/active -H "Authorization: Bearer $RIDER"    # with the route to the store
            #   \#(curl) "\#(base)/api/v1/rider/tasks/$TASK_ID/route?from=43.7445,7.4318&heading=180" -H "Authorization: Bearer $RIDER"
            #   \#(curl) \#(base)/api/v1/orders/\#(second)/events -H "Authorization: Bearer $DISPATCHER"
            #
            # Navigation on the Monaco map (OpenStreetMap data © OpenStreetMap contributors, ODbL):
            #   \#(curl) "\#(base)/api/v1/routes?from=43.7396,7.4276&to=43.7289,7.4170" -H "Authorization: Bearer $DISPATCHER"
            #   \#(command) route --from 43.7396,7.4276 --to 43.7289,7.4170
            #   \#(curl) \#(base)/openapi.json

            """#
        // Tokens are credentials: the file is the owner's only.
        FileManager.default.createFile(
            atPath: path, contents: Data(script.utf8), attributes: [.posixPermissions: 0o600])
    }
}
