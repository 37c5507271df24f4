import Foundation
import PackagePlugin

/// Embeds `Web/Assets/*` of the target into the binary as one generated Swift file. SwiftPM's own `.embedInCode`
/// writes byte-array literals that took about a minute to compile per 200 KB here; string literals compile at once.
@main
struct EmbedWebAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let folder = target.directoryURL.appending(path: "Web/Assets")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        let inputs = names.sorted().map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedWebAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) web assets",
                executable: try context.tool(named: "EmbedWebAssetsTool").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
