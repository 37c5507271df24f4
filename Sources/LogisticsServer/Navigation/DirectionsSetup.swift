import AsyncHTTPClient
import Foundation
import Logging
import LogisticsCore
import RoadRouting
import Threads

/// Chooses and prepares the directions provider the configuration names.
enum DirectionsSetup {
    static func provider(_ configuration: ServerConfiguration, logger: Logger) async throws -> any DirectionsProvider {
        switch configuration.routing.provider {
        case .external:
            guard let url = configuration.routing.url, URL(string: url)?.host != nil else {
                throw ConfigurationError(
                    "LOGISTICS_ROUTING_URL must be an http(s) URL for the external routing provider")
            }
            var key: String?
            if let file = configuration.routing.keyFile {
                guard let contents = FileManager.default.contents(atPath: file) else {
                    throw ConfigurationError("LOGISTICS_ROUTING_KEY_FILE \(file) cannot be read")
                }
                key = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return ExternalDirections(baseURL: url, key: key, client: .shared, timeout: .seconds(2))
        case .builtin:
            guard let path = configuration.routing.mapPath else {
                logger.warning("no map configured: navigation answers 503 until LOGISTICS_MAP is set")
                return UnavailableDirections(cause: "no map loaded; set LOGISTICS_MAP")
            }
            // Importing a map or reading its cache holds a thread for seconds: not one of the cooperative pool's.
            return try await OwnThread.run { try builtin(path: path, configuration: configuration, logger: logger) }
        }
    }

    /// A `.pbf` is imported for both profiles (cached in the data dir); a prepared graph serves its own profile.
    private static func builtin(
        path: String, configuration: ServerConfiguration, logger: Logger
    ) throws -> BuiltinDirections {
        let profiles: [RoutingProfile.Name] =
            path.hasSuffix(".pbf")
            ? [configuration.routing.profile]
                + RoutingProfile.Name.allCases.filter { $0 != configuration.routing.profile }
            : [configuration.routing.profile]
        var maps: [RoutingProfile.Name: RoadMap] = [:]
        let cache = configuration.mapCacheDirectory
        for profile in profiles {
            let started = Date()
            var lastLine = ""
            let map: RoadMap
            do {
                map = try RoadMapLoader.load(path: path, profile: profile, cacheDirectory: cache) { event in
                    let line = describe(event)
                    guard line != lastLine else { return }
                    lastLine = line
                    logger.info("map \(profile.rawValue): \(line)")
                }
            } catch {
                throw ConfigurationError("cannot load the map \(path): \(error)")
            }
            map.learned.timeZone = configuration.routing.timeZone
            maps[map.profile] = map
            logger.info(
                "map loaded",
                metadata: [
                    "profile": "\(map.profile.rawValue)", "nodes": "\(map.graph.nodeCount)",
                    "seconds": "\(String(format: "%.2f", Date().timeIntervalSince(started)))",
                ])
        }
        let defaultProfile =
            maps[configuration.routing.profile] != nil ? configuration.routing.profile : maps.keys.first!
        if defaultProfile != configuration.routing.profile {
            logger.warning("the prepared graph is for \(defaultProfile.rawValue); using it as the default profile")
        }
        return BuiltinDirections(
            maps: maps, defaultProfile: defaultProfile, maxSnapDistanceM: configuration.routing.maxSnapDistanceM,
            learnsTraffic: configuration.routing.trafficLearning)
    }

    private static func describe(_ event: RoadMapLoader.Event) -> String {
        switch event {
        case .loadedPrepared(let path): "loaded prepared graph \(path)"
        case .saved(let path): "saved prepared graph \(path)"
        case .importing(let stage): stage.progressLine(step: 25)
        }
    }
}
