import Foundation

/// The photo files a blob directory holds, to check what was written or swept.
enum BlobFiles {
    static func count(in directory: URL) throws -> Int {
        let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        return (walker?.allObjects as? [URL] ?? []).filter { !$0.hasDirectoryPath }.count
    }
}
