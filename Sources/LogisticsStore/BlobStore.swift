import Crypto
import Foundation

/// Content-addressed storage for photos. The filesystem store is the default; an object store can
/// take its place behind this protocol.
public protocol BlobStore: Sendable {
    /// Stores the bytes under their SHA-256 (hex) and returns it; storing the same bytes twice is a no-op.
    func put(_ bytes: [UInt8]) async throws -> String
    func get(sha256: String) async throws -> [UInt8]?
}

public struct FileBlobStore: BlobStore {
    let root: URL

    public init(directory: String) {
        root = URL(fileURLWithPath: directory, isDirectory: true)
    }

    public func put(_ bytes: [UInt8]) async throws -> String {
        let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        let destination = path(for: digest)
        if FileManager.default.fileExists(atPath: destination.path) { return digest }
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

    private func path(for digest: String) -> URL {
        root.appendingPathComponent(String(digest.prefix(2)), isDirectory: true).appendingPathComponent(digest)
    }
}
