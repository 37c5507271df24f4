import ArgumentParser
import AsyncHTTPClient
import CitySimulation
import Foundation
import Hummingbird
import Logging
import LogisticsCore
import LogisticsServer
import NIOSSL
import ServiceLifecycle

/// Starts the server on SQLite with a seeded fleet and orders, and prints the links to open first.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server on SQLite with seeded vendors, customers, riders and orders.")

    @Option(help: "Address to listen on; 0.0.0.0 lets a phone on the same network open the rider app (over HTTPS).")
    var host: String = "127.0.0.1"
    @Option(help: "Port to listen on; 0 picks a free one.") var port: Int = 8080
    @Option(name: .customLong("data-dir"), help: "Where the demo keeps its SQLite file, secret, certificate and log.")
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
    @Flag(
        name: .customLong("tls-self-signed"),
        help: ArgumentHelp(
            "Serve HTTPS with a certificate the demo makes itself, so phones give the pages GPS (on by itself with "
                + "--host 0.0.0.0)."))
    var tlsSelfSigned = false
    @Flag(name: .customLong("no-tls"), help: "Plain HTTP even with --host 0.0.0.0.") var noTLS = false

    func validate() throws {
        do { _ = try SimulatedTraffic.named(slow, timeZone: "UTC") } catch { throw ValidationError("\(error)") }
        if tlsSelfSigned && noTLS { throw ValidationError("--tls-self-signed and --no-tls cannot both be given") }
    }

    func run() async throws {
        var configuration = try ServerConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        configuration.host = host
        configuration.port = port
        configuration.dataDirectory = dataDirectory
        configuration.database.url = nil
        configuration.environment = .development
        // The person asked for the network with --host: the demo is development by design.
        configuration.developmentOnNetwork = true
        configuration.riderAppDemo = true
        // The demo's city is Monaco: its sign-in pages show a Monaco number as the example, unless told another.
        if configuration.signIn.phoneExample == nil { configuration.signIn.phoneExample = "+377 99 12 34 56" }
        // The demo shows automatic dispatch: the simulated stores' orders are offered by the server (the demo's
        // vendor); the orders placed for the person in the rider app, who may have no GPS, are offered by hand.
        configuration.dispatch.automatic = .vendors([SimulationOffice.vendorId])
        // The demo's simulated riders all call from this machine: one address, many phones.
        configuration.rateLimits.perAddress = nil
        let log = DemoLogFile(directory: dataDirectory)
        Console.line(
            "Starting the Rider Logistics demo (SQLite in \(dataDirectory); the server's log: \(log.path)) ...")
        let mapPath = ProcessInfo.processInfo.environment["LOGISTICS_MAP"] ?? map
        if FileManager.default.fileExists(atPath: mapPath) {
            configuration.routing.mapPath = mapPath
            Console.line(
                "Loading the map \(mapPath) (imported once, then cached in \(configuration.mapCacheDirectory)) ...")
        } else {
            Console.line("warning: no map at \(mapPath); navigation will answer 503 (pass --map FILE.osm.pbf)")
        }
        let logger = log.logger(level: configuration.logLevel)
        // The demo's own riders call the server on this machine; the printed links name an address others reach.
        let wildcard = ["0.0.0.0", "::"].contains(host)
        let localHost = wildcard ? "127.0.0.1" : host
        let linkHost = wildcard ? (NetworkAddress.firstExternalIPv4() ?? host) : host
        var certificate: DemoCertificate?
        if tlsSelfSigned || (wildcard && !noTLS) {
            do {
                certificate = try DemoCertificate.prepare(in: dataDirectory, naming: linkHost)
            } catch {
                throw Console.failure("cannot make the demo's certificate: \(error)")
            }
            configuration.tlsCertificateFile = certificate?.certificatePath
            configuration.tlsKeyFile = certificate?.keyPath
        }
        let scheme = certificate == nil ? "http" : "https"
        let (ports, portReporter) = AsyncStream.makeStream(of: Int.self)
        let (fleetPorts, fleetPortReporter) = AsyncStream.makeStream(of: Int.self)
        let (appPorts, appPortReporter) = AsyncStream.makeStream(of: Int.self)
        let built: LogisticsApplication
        do {
            built = try await buildApplication(configuration, logger: logger) { port in
                Console.line("Rider Logistics listening on \(scheme)://\(linkHost):\(port)")
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
        let seeded = try await DemoFleet.seed(built.components)
        let traffic = try SimulatedTraffic.named(slow, timeZone: "UTC")
        // Made last: a client of its own (one that trusts the demo's certificate) must be shut down on every way out.
        let local = DemoLocal(
            scheme: scheme, host: localHost, linkHost: linkHost,
            http: try certificate.map(DemoLocal.client(trusting:)) ?? .shared, certificate: certificate)
        var application = built.application
        // The simulated rider runs as one of the server's services, so Ctrl-C stops it first: its requests
        // every 2 s would otherwise keep a connection busy and the server from finishing its shutdown.
        application.addServices(
            DemoRideService(
                services: built.components, local: local, dataDirectory: dataDirectory, ports: ports, seeded: seeded,
                fleet: riders == 0
                    ? nil
                    : "\(riders) simulated riders (RiderKit) deliver around the map, a count every 30 s"
                        + (traffic.slowdowns.isEmpty
                            ? "" : "; slower: " + traffic.slowdowns.map(\.description).joined(separator: ", "))),
            DemoFleetService(
                services: built.components, local: local, ports: fleetPorts, riders: riders, traffic: traffic),
            DemoAppRiderService(services: built.components, local: local, ports: appPorts),
            DemoEventsService(services: built.components))
        do {
            try await application.runService()
        } catch {
            if local.certificate != nil { try? await local.http.shutdown() }
            // One line, not a dump of every service's state.
            throw Console.failure("the demo stopped: \(String(describing: error).prefix(300))")
        }
        if local.certificate != nil { try? await local.http.shutdown() }
        Console.line("Demo stopped.")
    }
}

/// How the demo's own clients reach its server (on this machine) and how the printed links name it (for others).
struct DemoLocal: Sendable {
    let scheme: String
    let host: String
    let linkHost: String
    /// Trusts the demo's certificate when there is one: its own riders call over HTTPS too.
    let http: HTTPClient
    let certificate: DemoCertificate?

    func base(_ port: Int) -> String { "\(scheme)://\(host):\(port)" }
    func links(_ port: Int) -> String { "\(scheme)://\(linkHost):\(port)" }

    static func client(trusting certificate: DemoCertificate) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(certificate.pem.utf8), format: .pem)])
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
    }
}

/// Prints the links to open first, the seeded orders with their delivery codes and where the shell walkthrough is,
/// then keeps the demo rider delivering until shutdown.
struct DemoRideService: Service {
    let services: ServerComponents
    let local: DemoLocal
    let dataDirectory: String
    let ports: AsyncStream<Int>
    let seeded: DemoFleet.Seeded
    /// What the simulated fleet does, said with the seeded orders.
    let fleet: String?

    func run() async throws {
        guard let port = await ports.first(where: { _ in true }) else { return }
        let links = local.links(port)
        let walkthrough = URL(fileURLWithPath: dataDirectory).appendingPathComponent("walkthrough.sh").path
        try await DemoFleet.writeWalkthrough(
            seeded, services: services, base: links,
            curlOptions: local.certificate.map { " --cacert \($0.certificatePath)" } ?? "", to: walkthrough)
        if let tokens = services.tokens {
            let dispatcher = try await tokens.token(
                subject: DemoFleet.dispatcher.id, role: .dispatcher, name: DemoFleet.dispatcher.name, ttl: 86_400)
            let appRider = DemoFleet.appRider
            let rider = try await tokens.token(subject: appRider.id, role: .rider, name: appRider.name, ttl: 86_400)
            Console.line()
            Console.line("Open these first (each link signs you in; keep them to yourself):")
            // The token rides in the fragment, which the browser keeps to itself.
            Console.line("  Dispatcher's live map in a browser: \(links)/dispatch#token=\(dispatcher)")
            Console.line(
                "  Deliver an order yourself as \(appRider.name ?? "a rider") in the rider app (go online; an order is "
                    + "offered to you while you are free): \(links)/rider#token=\(rider)")
            Console.line("  A customer's tracking page: printed below once the demo's live delivery is on its way.")
            Console.line()
            Console.line(
                "Or sign in as a real user would: open the page, type the phone number, and the code \"sent\" by SMS is "
                    + "printed here (LOGISTICS_SMS_PROVIDER=log sends nothing):")
            for (_, phone, page, who) in DemoFleet.signIns {
                Console.line("  \(who): \(links)\(page)  phone \(phone)")
            }
            Console.line(
                "  the store's staff (\(DemoFleet.store.name)): \(links)/vendor  phone \(DemoFleet.storeStaff.phone)")
            if let certificate = local.certificate {
                Console.line(
                    "  HTTPS with the demo's own certificate (SHA-256 \(certificate.fingerprint.prefix(23))…): a browser "
                        + "warns once that the connection is not private. Chrome: Advanced, then \"Proceed to "
                        + "\(local.linkHost)\"; Safari: Show Details, then \"visit this website\". Phones give the pages "
                        + "GPS over HTTPS only.")
            } else if local.linkHost != local.host {
                Console.line(
                    "  (a phone's browser gives a page GPS only over HTTPS: start the demo with --tls-self-signed, or use "
                        + "the app's \"Simulate my drive\")")
            }
        }
        try await printSeededOrders(port)
        if let fleet { Console.line("  and \(fleet).") }
        Console.line()
        Console.line("From a shell: `. \(walkthrough)` sets the tokens; the file lists curl commands to try.")
        Console.line("Press Ctrl-C to stop. What happens, one line per event:")
        let ride = DemoRide(services: services, base: local.base(port), http: local.http) { orderId, trackingPage in
            Console.line(
                "Live: \(DemoFleet.riders[2].name ?? "a rider") is bringing order \(orderId) to "
                    + "\(DemoFleet.customers[0].0.name ?? "the customer"). Follow it:\n"
                    + (trackingPage.flatMap { URL(string: $0)?.path }.map {
                        "  in a browser (the customer's tracking page): \(links)\($0)\n"
                    } ?? "")
                    // `follow` trusts the system's certificates only: offered over plain HTTP.
                    + (local.certificate == nil
                        ? "  \(DemoCommand.name) follow --server \(links) --order \(orderId)    # after `. \(walkthrough)`"
                        : ""))
        }
        await cancelWhenGracefulShutdown { await ride.run() }
    }

    /// The seeded orders, each code order with the code its customer gives the rider at the door.
    private func printSeededOrders(_ port: Int) async throws {
        guard let tokens = services.tokens else { return }
        let office = SimulationOffice(base: local.base(port), http: local.http) {
            subject, role in try await tokens.token(subject: subject, role: role, name: nil)
        }
        Console.line()
        Console.line(
            "Seeded: \(DemoFleet.riders.count) riders online, \(DemoFleet.appRider.name ?? "a rider") offline (for you), "
                + "the store \(DemoFleet.store.name) and \(seeded.orders.count) orders:")
        for order in seeded.orders {
            var line =
                "  \(order.externalRef ?? order.id.lowercased)  \(order.status.rawValue)  to \(order.customer.name)"
            if order.podType == .otp {
                do {
                    let code = try await office.deliveryCode(
                        .init(orderId: order.id.lowercased, customerId: order.customer.id))
                    line += "  DELIVERY CODE \(code) (the customer gives it to the rider at the door)"
                } catch {
                    line += "  (its delivery code could not be read: \(error))"
                }
            } else {
                line += "  (proof: a photo at the door)"
            }
            Console.line(line)
        }
    }
}

/// Simulated riders (RiderKit, as `logistics simulate` runs them) delivering orders around the map for as long
/// as the demo runs, so the dispatcher stream and the order list are always busy.
struct DemoFleetService: Service {
    let services: ServerComponents
    let local: DemoLocal
    let ports: AsyncStream<Int>
    let riders: Int
    let traffic: SimulatedTraffic

    func run() async throws {
        // A service that returns early stops the whole demo: without riders, it just waits for the end.
        guard riders > 0, let tokens = services.tokens, let port = await ports.first(where: { _ in true }) else {
            try? await gracefulShutdown()
            return
        }
        var simulation = Simulation(
            base: local.base(port),
            plan: SimulationPlan(
                riders: riders, deliveries: nil, duration: 365 * 86_400, speedMps: 14, fixInterval: 1, shortTrips: true,
                automaticDispatch: true, traffic: traffic)
        ) { subject, role in
            try await tokens.token(subject: subject, role: role, name: role == .rider ? "Simulated rider" : nil)
        }
        simulation.http = local.http
        simulation.print = { Console.line("fleet: " + $0) }
        simulation.liveEvery = .seconds(30)
        let fleet = simulation
        await cancelWhenGracefulShutdown { _ = try? await fleet.run() }
    }
}
