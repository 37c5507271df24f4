import Foundation

/// How a person runs this binary again, for the commands the demo prints: `swift run logistics` in the checkout it
/// was built in, otherwise the binary's own path.
enum DemoCommand {
    static let name: String = {
        let binary =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        let here = FileManager.default.currentDirectoryPath
        let builtHere =
            binary.hasPrefix(here + "/.build/") && FileManager.default.fileExists(atPath: here + "/Package.swift")
        return builtHere ? "swift run logistics" : binary
    }()
}
