import Foundation
import LogisticsCore
import LogisticsServer
import RoadRouting
import Threads

/// Monaco imported once per test process for both profiles, into a cache directory every test server shares,
/// so a server with a map starts in milliseconds.
enum MapFixture {
    static let pbfPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Maps/monaco.osm.pbf").path

    private static let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("logistics-test-maps-\(UUID())").path

    /// The import runs on a thread of its own (`OwnThread`) and is awaited, not computed in a `static let` initialiser:
    /// every cooperative thread that touched such an initialiser blocked in it until the import ended, and on two
    /// cores that stalled the whole run (a RiderKit timeout test took many times its 1 s timeout).
    private static let importing = Task<Void, Never> {
        await OwnThread.run {
            do {
                for profile in RoutingProfile.Name.allCases {
                    _ = try RoadMapLoader.load(path: pbfPath, profile: profile, cacheDirectory: directory)
                }
            } catch {
                fatalError("the committed Monaco extract must import: \(error)")
            }
        }
    }

    /// The shared cache directory, once the import has finished.
    static var cacheDirectory: String {
        get async {
            await importing.value
            return directory
        }
    }

    /// Waits for the import; `TestServer.run` calls it before `configure`, so `monaco` can stay synchronous.
    static func imported() async { await importing.value }

    /// Configures a test server with the Monaco map (after `imported()`).
    static func monaco(_ configuration: inout ServerConfiguration) {
        configuration.routing.mapPath = pbfPath
        configuration.routing.mapCacheDirectoryOverride = directory
    }
}
