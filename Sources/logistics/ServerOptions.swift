import ArgumentParser
import Foundation
import LogisticsServer

/// Flags shared by the commands that open the store. Flags win over environment, which wins over defaults.
struct ServerOptions: ParsableArguments {
    @Option(help: "Address to listen on (LOGISTICS_HOST).") var host: String?
    @Option(help: "Port to listen on; 0 picks a free one (LOGISTICS_PORT).") var port: Int?
    @Option(
        name: .customLong("data-dir"), help: "Directory for the SQLite file, secrets and blobs (LOGISTICS_DATA_DIR).")
    var dataDirectory: String?
    @Option(
        name: .customLong("database-url"), help: "postgres:// URL; SQLite in the data dir when absent (DATABASE_URL).")
    var databaseURL: String?
    @Option(help: "OpenStreetMap .osm.pbf or prepared .graph for navigation (LOGISTICS_MAP).") var map: String?
    @Flag(
        help: """
            In development, listen on an address other than loopback (LOGISTICS_DEVELOPMENT_ON_NETWORK=on): its \
            generated secret and private webhooks are then open to the network.
            """)
    var developmentOnNetwork = false

    func resolve() throws -> ServerConfiguration {
        var configuration = try ServerConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        if let host { configuration.host = host }
        if let port {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
            configuration.port = port
        }
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        if let databaseURL { configuration.database.url = databaseURL }
        if let map { configuration.routing.mapPath = map }
        if developmentOnNetwork { configuration.developmentOnNetwork = true }
        return configuration
    }
}
