import CitySimulation
import Foundation
import LogisticsCore
import RiderKit
import RoadRouting
import Synchronization

/// One simulated rider doing whole deliveries through RiderKit, as the app would: goes online, takes the offer
/// made to them, drives the road route to the store and the customer sending noisy GPS, loses signal in
/// tunnels and the network now and then, and proves delivery with the customer's code.
struct SimulatedRider: Sendable {
    let id: UUID
    let name: String
    let plan: SimulationPlan
    let api: RiderAPI
    let session: RiderSession
    let network: SimulatedNetwork
    let uploader: LocationUploader
    let office: SimulationOffice
    let report: SimulationReport
    var position: GeoPoint
    /// Where the last delivery ended: short trips do not start from the customer's own door.
    var lastHome: GeoPoint? = nil
    /// This rider's share of the plan's seed.
    var random: SeededGenerator

    /// Keeps delivering until the plan's target is reached or the task is cancelled.
    mutating func run() async {
        do {
            _ = try await api.setAvailability(online: true)
            await uploader.setDuty(.onTask)
            _ = try await session.resume()
        } catch {
            report.error("\(name) could not go online: \(error)")
            return
        }
        while !Task.isCancelled, report.startDelivery(limit: plan.deliveries) {
            do {
                try await deliverOne()
            } catch is CancellationError {
                return
            } catch {
                report.error("\(name): \(error)")
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private mutating func deliverOne() async throws {
        let store: MonacoPlaces.Place
        let home: MonacoPlaces.Place
        if plan.shortTrips {
            (store, home) = MonacoPlaces.shortTrip(near: position, after: lastHome, using: &random)
        } else {
            var places = MonacoPlaces.all.shuffled(using: &random)
            store = places.removeFirst()
            home = places.removeFirst()
        }
        if office.automatic {
            // Where the rider waits, as the app reports it when standing still: what automatic dispatch ranks by.
            _ = try? await api.sendLocations([
                LocationFix(lat: position.lat, lon: position.lon, accuracyM: 5, speedMps: 0, recordedAt: Date())
            ])
        }
        let placed = try await office.orderFor(riderId: id, store: store, home: home)
        // With automatic dispatch the server decides who rides which order: this rider takes whatever it is offered
        // (most often the order it just asked for, being the nearest), and rides to that order's store and customer.
        let task = try await acceptWhenOffered(office.automatic ? nil : placed.orderId)
        guard let order = office.placed(task.orderId), let customer = task.customer else {
            throw SimulationError("offered \(task.orderId), which the simulation did not place")
        }
        let storeLocation = task.vendor.location
        let homeLocation = customer.location
        lastHome = homeLocation
        report.update { $0.riding += 1 }
        defer { report.update { $0.riding -= 1 } }

        try await drive(to: storeLocation, taskId: task.taskId)
        try await tap(.arrivedAtStore, task.taskId)
        try await tap(.pickedUp, task.taskId)
        try await drive(to: homeLocation, taskId: task.taskId)
        let asked = Asked()
        let offline = network.isDown
        guard try await session.arrive(task: task, at: position, confirm: { _ in asked.yes() }) else { return }
        report.update {
            $0.statusCalls += 1
            if offline { $0.replays += 1 }
            if asked.count > 0 { $0.farArrivals += 1 }
        }
        try await settle()
        let code = try await office.deliveryCode(order)
        try await session.proveDelivery(code: code, taskId: task.taskId, at: position)
        try await settle()
        try await tap(.delivered, task.taskId)
        report.update { $0.deliveriesCompleted += 1 }
    }

    /// Waits for the offer of `orderId` (or any offer) and accepts it, with RiderKit's single retry.
    private func acceptWhenOffered(_ orderId: String?) async throws -> RiderTask {
        for _ in 0..<120 {
            if let offer = try? await api.offers().first(where: { orderId == nil || $0.orderId == orderId }) {
                do {
                    return try await session.accept(offerId: offer.offerId)
                } catch is RiderSession.AcceptFailed {
                    // No answer twice: the app shows the offer again, and the rider taps once more.
                    report.update { $0.acceptRetries += 1 }
                }
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        throw SimulationError("the offer for \(orderId ?? "any order") never arrived")
    }

    private func tap(_ status: TaskStatus, _ taskId: String) async throws {
        let offline = network.isDown
        try await session.tap(status, taskId: taskId, at: position)
        report.update {
            $0.statusCalls += 1
            if offline { $0.replays += 1 }
        }
        try await settle()
    }

    /// Waits until the queue has delivered everything (it retries by itself while the network is down).
    private func settle() async throws {
        while true {
            let state = await session.queue.sync()
            switch state {
            case .idle:
                return
            case .blocked(_, let problem):
                try await session.queue.discardBlocked()
                throw SimulationError("refused: \(problem.summary)")
            case .sending, .retrying:
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Follows the road route (a straight line when the server has no map) at the plan's speed with RiderKit's
    /// navigation session, a noisy fix every `fixInterval` through RiderKit's uploader; now and then takes a
    /// wrong turn (the session re-routes) or drives through a tunnel (the session searches for GPS).
    private mutating func drive(to destination: GeoPoint, taskId: String) async throws {
        let api = self.api
        var path: [GeoPoint]
        var navigation: NavigationSession?
        var streets = StreetsAlong(nil)
        if let route = try? await api.route(taskId: taskId, from: position),
            let points = Polyline.decode(route.geometry), points.count >= 2
        {
            path = points + [destination]
            streets = StreetsAlong(route)
            navigation = NavigationSession(route: route, destination: destination) { from, heading in
                try await api.route(taskId: taskId, from: from, headingDeg: heading)
            }
        } else {
            report.update { $0.straightLineLegs += 1 }
            path = [position, destination]
        }
        let tunnelSeconds =
            plan.tunnels && Double.random(in: 0..<1, using: &random) < 0.25
            ? Double.random(in: 12...20, using: &random) : 0
        if tunnelSeconds > 0 { report.update { $0.tunnels += 1 } }
        let wrongTurn = navigation != nil && Double.random(in: 0..<1, using: &random) < 0.2
        let step = plan.speedMps * plan.fixInterval
        var points = path.sampled(every: step)[...]
        let turnAt = points.count / 3
        var driven = 0
        var tunnelEnds: Date?
        var uploadFailed = false
        var previous: GeoPoint? = nil
        var travelled = -step
        while let point = points.popFirst() {
            travelled += step
            // A slowed street takes longer to drive: the same step, a longer wait, a lower reported speed.
            let slowdown = plan.traffic.factor(street: streets.street(atMetre: travelled), at: Date())
            if slowdown < 1 { report.update { $0.slowedFixes += 1 } }
            // A phone's GPS reports its course over the ground: the way from the last point to this one.
            let heading = previous.map { Bearing.degrees(from: $0, to: point) }
            previous = point
            try Task.checkCancellation()
            position = GeoPoint(lat: point.lat, lon: point.lon, accuracyM: 5)
            driven += 1
            let now = Date()
            if tunnelSeconds > 0, driven == 3 { tunnelEnds = now.addingTimeInterval(tunnelSeconds) }
            if let ends = tunnelEnds, now < ends {
                if let events = await navigation?.checkSignal(now: now), events.contains(.searchingForGPS) {
                    report.update { $0.gpsSearches += 1 }
                }
            } else {
                // A fast-forwarded ride still reports a city speed: the server refuses faster than 100 m/s.
                let fix = Self.noisyFix(
                    at: point, speed: min(plan.speedMps, 14) * slowdown, heading: heading, using: &random)
                await uploader.record(fix)
                for event in await navigation?.update(fix) ?? [] {
                    if case .rerouted(let fresh) = event, let shape = Polyline.decode(fresh.geometry) {
                        report.update { $0.reroutes += 1 }
                        points = (shape + [destination]).sampled(every: step)[...]
                        streets = StreetsAlong(fresh)
                        travelled = 0
                    }
                }
            }
            if wrongTurn, driven == turnAt, let next = points.first {
                // Straight on where the route turns: 150 m off at right angles, until the session re-routes.
                report.update { $0.wrongTurns += 1 }
                points = Self.detour(from: point, towards: next, metres: 150, every: step)[...] + points
            }
            await upload(failedBefore: &uploadFailed)
            try await Task.sleep(for: .milliseconds(Int(plan.fixInterval / slowdown * 1000)))
        }
        position = GeoPoint(lat: destination.lat, lon: destination.lon, accuracyM: 5)
        await uploader.flush()
        // Signal often drops at the door (stairwells, basements): the taps that follow wait in the queue.
        if plan.networkDrops, Double.random(in: 0..<1, using: &random) < 0.35 {
            network.drop(for: .milliseconds(Int.random(in: 1500...3500, using: &random)))
            report.update { $0.networkDrops += 1 }
        }
    }

    /// Sends the uploader's batch when due, counting fixes that went late because of a drop.
    private func upload(failedBefore: inout Bool) async {
        let waiting = await uploader.pending.count
        guard waiting > 0 else { return }
        let sent = await uploader.flushIfDue(now: Date())
        let late = failedBefore
        if sent {
            report.update {
                $0.fixesSent += waiting
                if late { $0.lateFixes += waiting }
            }
            failedBefore = false
        } else if network.isDown {
            failedBefore = true
        }
    }

    /// Points leading away from `point` at right angles to the way to `next`.
    static func detour(from point: GeoPoint, towards next: GeoPoint, metres: Double, every step: Double) -> [GeoPoint] {
        let north = next.lat - point.lat
        let east = (next.lon - point.lon) * cos(point.lat * .pi / 180)
        let norm = max((north * north + east * east).squareRoot(), 1e-9)
        return stride(from: max(step, 5), through: metres, by: max(step, 5)).map { along in
            GeoPoint(
                lat: point.lat - east / norm * along / 111_320,
                lon: point.lon + north / norm * along / (111_320 * cos(point.lat * .pi / 180)))
        }
    }

    /// GPS noise of a few metres, as a phone in a street reports.
    static func noisyFix(
        at point: GeoPoint, speed: Double, heading: Double? = nil, using random: inout some RandomNumberGenerator
    ) -> LocationFix {
        let noiseM = Double.random(in: 0...6, using: &random)
        let angle = Double.random(in: 0..<(2 * .pi), using: &random)
        let lat = point.lat + noiseM * cos(angle) / 111_320
        let lon = point.lon + noiseM * sin(angle) / (111_320 * cos(point.lat * .pi / 180))
        return LocationFix(
            lat: lat, lon: lon, accuracyM: 5 + noiseM, speedMps: speed,
            headingDeg: heading.map { ($0 * 10).rounded() / 10 },
            recordedAt: Date())
    }
}

/// Counts the arrival questions a simulated rider answered Yes to.
final class Asked: Sendable {
    private let answers = Mutex(0)
    func yes() -> Bool {
        answers.withLock { $0 += 1 }
        return true
    }
    var count: Int { answers.withLock { $0 } }
}
