import Foundation
import PackagePlugin

/// Embeds the pages' files, the package's top-level `Web/` folder but its `TypeCheck/` (one folder per app and
/// `Shared/`, keyed by their path below `Web/`, as they are served under `/web/`) into the binary as one generated
/// Swift file, and every `openapi.json` below the target (the
/// OpenAPI document's root and each feature's fragment, keyed by path) as another. SwiftPM's own `.embedInCode`
/// writes byte-array literals that took about a minute to compile per 200 KB here; string literals compile at once.
@main
struct EmbedWebAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        // The pages live at the top of the repository, where a newcomer looks for them, not inside the server's
        // target; tsc's settings beside them are not served.
        let assets = context.package.directoryURL.appending(path: "Web")
        let names = Self.files(below: assets).filter { !$0.hasPrefix("TypeCheck/") }
        // Walked rather than listed, so a new feature's fragment is served without touching the plugin.
        let openAPI = Self.files(below: target.directoryURL).filter {
            $0 == "openapi.json" || $0.hasSuffix("/openapi.json")
        }
        return [
            try embed(names, in: assets, as: "EmbeddedWebAssets", what: "web assets", context: context),
            try embed(openAPI, in: target.directoryURL, as: "EmbeddedOpenAPI", what: "OpenAPI files", context: context),
        ]
    }

    /// Every regular file below `folder`, as paths relative to it; hidden files and folders are skipped.
    private static func files(below folder: URL) -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var files: [String] = []
        while let path = walk.nextObject() as? String {
            let isDirectory = walk.fileAttributes?[.type] as? FileAttributeType == .typeDirectory
            if path.split(separator: "/").last?.hasPrefix(".") == true {
                if isDirectory { walk.skipDescendants() }
                continue
            }
            if !isDirectory { files.append(path) }
        }
        return files
    }

    /// One generated `enum <name>` holding `files`, keyed by their paths below `folder`.
    private func embed(
        _ files: [String], in folder: URL, as name: String, what: String, context: PluginContext
    ) throws -> Command {
        let inputs = files.sorted().map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "\(name).swift")
        return .buildCommand(
            displayName: "Embedding \(inputs.count) \(what)",
            executable: try context.tool(named: "EmbedWebAssetsTool").url,
            arguments: [output.path, name, folder.path] + inputs.map(\.path),
            inputFiles: inputs,
            outputFiles: [output])
    }
}
