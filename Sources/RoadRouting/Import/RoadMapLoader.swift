import Foundation

/// Loads the map a server or a command names: a prepared graph file as is, or an OSM PBF file, imported on first
/// use and cached beside the data so later starts load in milliseconds.
public enum RoadMapLoader {
    public enum Event: Sendable {
        case loadedPrepared(path: String)
        case importing(MapImporter.Stage)
        case saved(path: String)
    }

    public static func load(
        path: String, profile: RoutingProfile.Name, cacheDirectory: String?, progress: (Event) -> Void = { _ in }
    ) throws(MapImportError) -> RoadMap {
        guard path.hasSuffix(".pbf") else {
            let map = try RoadMapFile.read(from: path)
            progress(.loadedPrepared(path: path))
            return map
        }
        let cachePath = cacheDirectory.map { Self.cachePath(for: path, profile: profile, in: $0) }
        if let cachePath, FileManager.default.fileExists(atPath: cachePath) {
            // A stale or damaged cache is simply rebuilt.
            do {
                let map = try RoadMapFile.read(from: cachePath)
                if map.profile == profile {
                    progress(.loadedPrepared(path: cachePath))
                    return map
                }
            } catch {}
        }
        let map = try prepare(pbf: path, profile: profile) { progress(.importing($0)) }
        if let cachePath, let cacheDirectory {
            try? FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
            // A cache that cannot be written only costs the next start an import.
            do {
                try RoadMapFile.write(map, to: cachePath)
                progress(.saved(path: cachePath))
            } catch {}
        }
        return map
    }

    /// Imports and contracts a PBF file.
    public static func prepare(
        pbf path: String, profile: RoutingProfile.Name, honourRestrictions: Bool = true,
        progress: (MapImporter.Stage) -> Void = { _ in }
    ) throws(MapImportError) -> RoadMap {
        let reader = try PBFReader(path: path)
        let (graph, _) = try MapImporter.importGraph(
            pbf: reader, profile: RoutingProfile(profile), honourRestrictions: honourRestrictions, progress: progress)
        return RoadMap.prepare(graph: graph) { progress(.contracting(metric: $0, fraction: $1)) }
    }

    /// The cache name carries the source's size and modification time, so an updated extract is imported again.
    static func cachePath(for pbf: String, profile: RoutingProfile.Name, in directory: String) -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: pbf)
        let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        let modified = Int((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        let base = URL(fileURLWithPath: pbf).deletingPathExtension().deletingPathExtension().lastPathComponent
        return "\(directory)/\(base)-\(profile.rawValue)-\(size)-\(modified)-v\(RoadMapFile.version).graph"
    }
}
