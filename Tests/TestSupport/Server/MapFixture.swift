import Foundation
import LogisticsServer
import RoadRouting

/// Monaco imported once per test process for both profiles, into a cache directory every test server shares,
/// so a server with a map starts in milliseconds.
enum MapFixture {
    static let pbfPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Maps/monaco.osm.pbf").path

    static let cacheDirectory: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-test-maps-\(UUID())")
            .path
        do {
            for profile in RoutingProfile.Name.allCases {
                _ = try RoadMapLoader.load(path: pbfPath, profile: profile, cacheDirectory: directory)
            }
        } catch {
            fatalError("the committed Monaco extract must import: \(error)")
        }
        return directory
    }()

    /// Configures a test server with the Monaco map.
    static func monaco(_ configuration: inout ServerConfiguration) {
        configuration.mapPath = pbfPath
        configuration.mapCacheDirectoryOverride = cacheDirectory
    }
}
