import ArgumentParser
import Foundation
import Hummingbird
import Logging
import LogisticsCore
import LogisticsServer
import ServiceLifecycle

/// Starts the server on SQLite with a seeded fleet and orders, and prints ready-to-paste commands.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server on SQLite with seeded vendors, customers, riders and orders.")

    @Option(help: "Address to listen on; 0.0.0.0 lets a phone on the same network open the rider app.")
    var host: String = "127.0.0.1"
    @Option(help: "Port to listen on; 0 picks a free one.") var port: Int = 8080
    @Option(name: .customLong("data-dir"), help: "Where the demo keeps its SQLite file and secret.")
    var dataDirectory: String = "./logistics-data"
    @Option(help: "OpenStreetMap extract (.osm.pbf) or prepared graph for navigation (LOGISTICS_MAP).")
    var map: String = "Maps/monaco.osm.pbf"
    @Option(help: "Simulated RiderKit riders delivering orders around the map (0 for none).") var riders: Int = 4
    @Option(
        name: .customLong("slow"),
        help: ArgumentHelp(
            "A street the simulated riders drive slower: NAME[@HH:MM-HH:MM][xFACTOR] in UTC; repeat for more "
                + "('monaco-morning': the 08:00-09:00 rush). Default: the port's boulevard at a third, all day.",
            valueName: "street"))
    var slow: [String] = ["Boulevard Albert 1er x0.35"]

    func validate() throws {
        do { _ = try SimulatedTraffic.named(slow, timeZone: "UTC") } catch { throw ValidationError("\(error)") }
    }

    func run() async throws {
        var configuration = try ServerConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        configuration.host = host
        configuration.port = port
        configuration.dataDirectory = dataDirectory
        configuration.databaseURL = nil
        configuration.environment = .development
        configuration.riderAppDemo = true
        // The demo shows automatic dispatch: the simulated stores' orders are offered by the server (the demo's
        // vendor); the orders placed for the person in the rider app, who may have no GPS, are offered by hand.
        configuration.dispatch.automatic = .vendors([SimulationOffice.vendorId])
        // The demo's simulated riders all call from this machine: one address, many phones.
        configuration.rateLimits.perAddress = nil
        Console.line("Starting the Rider Logistics demo (SQLite in \(dataDirectory)) ...")
        let mapPath = ProcessInfo.processInfo.environment["LOGISTICS_MAP"] ?? map
        if FileManager.default.fileExists(atPath: mapPath) {
            configuration.mapPath = mapPath
            Console.line(
                "Loading the map \(mapPath) (imported once, then cached in \(configuration.mapCacheDirectory)) ...")
        } else {
            Console.line("warning: no map at \(mapPath); navigation will answer 503 (pass --map FILE.osm.pbf)")
        }
        let logger = ServerLogging.makeLogger(configuration)
        // The demo's own riders call the server on this machine; the printed links name an address others reach.
        let wildcard = ["0.0.0.0", "::"].contains(host)
        let localHost = wildcard ? "127.0.0.1" : host
        let linkHost = wildcard ? (NetworkAddress.firstExternalIPv4() ?? host) : host
        let (ports, portReporter) = AsyncStream.makeStream(of: Int.self)
        let (fleetPorts, fleetPortReporter) = AsyncStream.makeStream(of: Int.self)
        let (appPorts, appPortReporter) = AsyncStream.makeStream(of: Int.self)
        let built: LogisticsApplication
        do {
            built = try await buildApplication(configuration, logger: logger) { port in
                Console.line("Rider Logistics listening on http://\(linkHost):\(port)")
                portReporter.yield(port)
                portReporter.finish()
                fleetPortReporter.yield(port)
                fleetPortReporter.finish()
                appPortReporter.yield(port)
                appPortReporter.finish()
            }
        } catch {
            throw Console.failure("cannot start the demo: \(ServerRunner.describe(error))")
        }
        let seeded = try await DemoFleet.seed(built.services)
        var application = built.application
        // The simulated rider runs as one of the server's services, so Ctrl-C stops it first: its requests
        // every 2 s would otherwise keep a connection busy and the server from finishing its shutdown.
        application.addServices(
            DemoRideService(
                services: built.services, host: localHost, linkHost: linkHost, ports: ports, seeded: seeded),
            DemoFleetService(
                services: built.services, host: localHost, ports: fleetPorts, riders: riders,
                traffic: try SimulatedTraffic.named(slow, timeZone: "UTC")),
            DemoAppRiderService(services: built.services, host: localHost, ports: appPorts))
        do {
            try await application.runService()
        } catch {
            // One line, not a dump of every service's state.
            throw Console.failure("the demo stopped: \(String(describing: error).prefix(300))")
        }
        Console.line("Demo stopped.")
    }
}

/// Prints the walkthrough once the server listens, then keeps the demo rider delivering until shutdown.
struct DemoRideService: Service {
    let services: LogisticsServices
    let host: String
    /// The address printed links use (the machine's own on the network when the demo listens on all of them).
    let linkHost: String
    let ports: AsyncStream<Int>
    let seeded: DemoFleet.Seeded

    func run() async throws {
        guard let port = await ports.first(where: { _ in true }) else { return }
        let base = "http://\(host):\(port)"
        let links = "http://\(linkHost):\(port)"
        try await DemoFleet.printWalkthrough(seeded, services: services, base: links)
        if let tokens = services.tokens {
            let dispatcher = try await tokens.token(
                subject: DemoFleet.dispatcher.id, role: .dispatcher, name: DemoFleet.dispatcher.name, ttl: 86_400)
            // The token rides in the fragment, which the browser keeps to itself.
            Console.line("Dispatcher's live map in a browser: \(links)/dispatch#token=\(dispatcher)")
            let appRider = DemoFleet.appRider
            let rider = try await tokens.token(subject: appRider.id, role: .rider, name: appRider.name, ttl: 86_400)
            Console.line(
                "Deliver an order yourself as \(appRider.name ?? "a rider") in the rider app (go online; an order is "
                    + "offered to you while you are free): \(links)/rider#token=\(rider)")
            if linkHost != host {
                Console.line(
                    "  (a phone's browser gives a page GPS and offline start only over HTTPS or on localhost: over this "
                        + "plain-http address, use the app's \"Simulate my drive\")")
            }
        }
        let ride = DemoRide(services: services, base: base) { orderId, trackingPage in
            Console.line(
                "Live: \(DemoFleet.riders[2].name ?? "a rider") is bringing order \(orderId) to "
                    + "\(DemoFleet.customers[0].0.name ?? "the customer"). Follow it:\n"
                    + (trackingPage.flatMap { URL(string: $0)?.path }.map {
                        "  in a browser (the customer's tracking page): \(links)\($0)\n"
                    } ?? "")
                    + "  swift run logistics follow --server \(links) --order \(orderId)    # uses $CUSTOMER\n"
                    + "  or watch every rider: WS \(links.replacingOccurrences(of: "http", with: "ws"))"
                    + "/api/v1/dispatch/stream with $DISPATCHER")
        }
        await cancelWhenGracefulShutdown { await ride.run() }
    }
}

/// Simulated riders (RiderKit, as `logistics simulate` runs them) delivering orders around the map for as long
/// as the demo runs, so the dispatcher stream and the order list are always busy.
struct DemoFleetService: Service {
    let services: LogisticsServices
    let host: String
    let ports: AsyncStream<Int>
    let riders: Int
    let traffic: SimulatedTraffic

    func run() async throws {
        // A service that returns early stops the whole demo: without riders, it just waits for the end.
        guard riders > 0, let tokens = services.tokens, let port = await ports.first(where: { _ in true }) else {
            try? await gracefulShutdown()
            return
        }
        Console.line(
            "Starting \(riders) simulated riders (RiderKit) delivering around the map; progress every 30 s."
                + (traffic.slowdowns.isEmpty
                    ? "" : " Slowed: " + traffic.slowdowns.map(\.description).joined(separator: ", ") + "."))
        var simulation = Simulation(
            base: "http://\(host):\(port)",
            plan: SimulationPlan(
                riders: riders, deliveries: nil, duration: 365 * 86_400, speedMps: 14, fixInterval: 1, shortTrips: true,
                automaticDispatch: true, traffic: traffic)
        ) { subject, role in
            try await tokens.token(subject: subject, role: role, name: role == .rider ? "Simulated rider" : nil)
        }
        simulation.print = { Console.line("fleet: " + $0) }
        simulation.liveEvery = .seconds(30)
        let fleet = simulation
        await cancelWhenGracefulShutdown { _ = try? await fleet.run() }
    }
}
