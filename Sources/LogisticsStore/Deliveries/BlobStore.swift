import Crypto
import Foundation

/// Content-addressed storage for photos. The filesystem store is the default; an object store can
/// take its place behind this protocol.
public protocol BlobStore: Sendable {
    /// Stores the bytes under their SHA-256 (hex) and returns it; storing the same bytes twice is a no-op.
    func put(_ bytes: [UInt8]) async throws -> String
    func get(sha256: String) async throws -> [UInt8]?
    /// Digests of the blobs last stored before `date` (storing existing bytes again counts as storing them).
    func digests(storedBefore date: Date) async throws -> [String]
    /// Removes the blob unless it was stored again since `date`; true when it is gone.
    func remove(sha256: String, ifStoredBefore date: Date) async throws -> Bool
}

public struct FileBlobStore: BlobStore {
    let root: URL

    public init(directory: String) {
        root = URL(fileURLWithPath: directory, isDirectory: true)
    }

    public func put(_ bytes: [UInt8]) async throws -> String {
        let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        let destination = path(for: digest)
        if FileManager.default.fileExists(atPath: destination.path) {
            // A fresh date keeps the sweep of unreferenced blobs off a file a new proof is about to refer to again.
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: destination.path)
            return digest
        }
        try FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Write aside, then rename: a reader never sees half a photo, and a crash leaves no torn file.
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString).tmp")
        do {
            try Data(bytes).write(to: temporary, options: .atomic)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw Self.outOfSpace(error) ? StoreError.storageFull("no space left for a photo") : error
        }
        do {
            try FileManager.default.moveItem(at: temporary, to: destination)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            if !FileManager.default.fileExists(atPath: destination.path) { throw error }
        }
        return digest
    }

    /// ENOSPC or a quota, however Foundation wraps it.
    static func outOfSpace(_ error: any Error) -> Bool {
        if let error = error as? CocoaError, error.code == .fileWriteOutOfSpace { return true }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        return [error as NSError, underlying].compactMap { $0 }.contains {
            $0.domain == NSPOSIXErrorDomain && ($0.code == Int(ENOSPC) || $0.code == Int(EDQUOT))
        }
    }

    public func get(sha256: String) async throws -> [UInt8]? {
        guard sha256.count == 64, sha256.allSatisfy(\.isHexDigit) else { return nil }
        guard let data = FileManager.default.contents(atPath: path(for: sha256).path) else { return nil }
        return Array(data)
    }

    public func digests(storedBefore date: Date) async throws -> [String] {
        let keys: [URLResourceKey] = [.contentModificationDateKey, .isRegularFileKey]
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys) else { return [] }
        var found: [String] = []
        for case let file as URL in walker {
            let name = file.lastPathComponent
            // Temporary files of a write in progress start with a dot and are not digests.
            guard name.count == 64, name.allSatisfy(\.isHexDigit),
                let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true,
                let modified = values.contentModificationDate, modified < date
            else { continue }
            found.append(name)
        }
        return found
    }

    public func remove(sha256: String, ifStoredBefore date: Date) async throws -> Bool {
        guard sha256.count == 64, sha256.allSatisfy(\.isHexDigit) else { return false }
        let file = path(for: sha256).path
        guard let modified = try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
        else { return true }
        guard modified < date else { return false }
        try FileManager.default.removeItem(atPath: file)
        return true
    }

    private func path(for digest: String) -> URL {
        root.appendingPathComponent(String(digest.prefix(2)), isDirectory: true).appendingPathComponent(digest)
    }
}
