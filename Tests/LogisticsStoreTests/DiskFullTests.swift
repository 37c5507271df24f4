import Foundation
import LogisticsStore
import Testing

@testable import TestSupport

/// The data directory on a small tmpfs that fills up: writes fail with a clear 503 and change nothing, what was
/// stored stays readable and intact, and writes work again once space returns. Mounting needs root (CI has it).
@Suite("Disk full", .serialized, .timeLimit(.minutes(2)))
struct DiskFullTests {
    /// A tmpfs of `megabytes` for the test's data directory, unmounted afterwards.
    struct SmallDisk {
        let path: String

        static func mount(megabytes: Int) throws -> SmallDisk? {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-full-\(UUID())").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let mount = Process()
            mount.executableURL = URL(fileURLWithPath: "/bin/mount")
            mount.arguments = ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path]
            mount.standardError = FileHandle.nullDevice
            try mount.run()
            mount.waitUntilExit()
            guard mount.terminationStatus == 0 else {
                FileHandle.standardError.write(
                    Data("note: cannot mount a tmpfs (needs root); disk-full test skipped\n".utf8))
                return nil
            }
            return SmallDisk(path: path)
        }

        /// Fills every free byte with a file that `free()` removes.
        func fill() {
            let handle =
                FileHandle(forWritingAtPath: filler)
                ?? {
                    _ = FileManager.default.createFile(atPath: filler, contents: nil)
                    return FileHandle(forWritingAtPath: filler)!
                }()
            let block = Data(count: 64 * 1024)
            while (try? handle.write(contentsOf: block)) != nil {}
            // The last bytes a 64 KiB write could not take.
            let small = Data(count: 512)
            while (try? handle.write(contentsOf: small)) != nil {}
            try? handle.close()
        }

        func free() { try? FileManager.default.removeItem(atPath: filler) }

        var filler: String { (path as NSString).appendingPathComponent("filler") }

        func unmount() {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = [path]
            try? umount.run()
            umount.waitUntilExit()
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    @Test("orders: 503 with Retry-After while the disk is full, nothing half-written, writes again once space returns")
    func ordersOnAFullDisk() async throws {
        guard let disk = try SmallDisk.mount(megabytes: 16) else { return }
        defer { disk.unmount() }
        try await TestServer.run(.sqlite, configure: { $0.dataDirectory = disk.path }) { server in
            let dispatcher = try await server.token(.dispatcher)
            var stored: [String] = []
            for _ in 0..<5 {
                let created = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
                stored.append(try #require(created["orderId"] as? String))
            }

            disk.fill()
            var refused = 0
            for _ in 0..<5 {
                let reply = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
                if reply.status == 503 {
                    refused += 1
                    #expect(reply.code == "SERVICE_UNAVAILABLE")
                    #expect(reply.headers[.retryAfter] == "30")
                    #expect(reply.text.contains("storage"))
                } else {
                    #expect(reply.status == 201, "a write on a full disk is refused or done, never anything else")
                    if let id = reply["orderId"] as? String { stored.append(id) }
                }
            }
            #expect(refused > 0, "the full disk was noticed")
            let ready = try await server.send(
                .post, "/api/v1/orders/\(stored[0])/ready", token: dispatcher)
            #expect(ready.status == 503 || ready.status == 200)
            // Reads go on while the disk is full.
            for id in stored {
                #expect(try await server.send(.get, "/api/v1/orders/\(id)", token: dispatcher).status == 200)
            }

            disk.free()
            let again = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
            #expect(again.status == 201)
            for id in stored {
                let log = try await server.send(.get, "/api/v1/orders/\(id)/events", token: dispatcher)
                let seqs = (log["events"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
                #expect(seqs == Array(1...max(1, seqs.count)), "order \(id): events \(seqs)")
            }
            let check = try await server.database.query("PRAGMA integrity_check")
            #expect(check.first?.optionalString("integrity_check") == "ok")
        }
    }

    @Test("a photo on a full disk is refused as storage full, and leaves no partial file")
    func photoOnAFullDisk() async throws {
        guard let disk = try SmallDisk.mount(megabytes: 2) else { return }
        defer { disk.unmount() }
        let blobs = FileBlobStore(directory: (disk.path as NSString).appendingPathComponent("blobs"))
        _ = try await blobs.put(Array(repeating: 1, count: 1000))
        disk.fill()
        await #expect(throws: StoreError.storageFull("no space left for a photo")) {
            _ = try await blobs.put(Array(repeating: 2, count: 300_000))
        }
        let leftovers = try FileManager.default.subpathsOfDirectory(
            atPath: (disk.path as NSString).appendingPathComponent("blobs")
        ).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
        disk.free()
        _ = try await blobs.put(Array(repeating: 2, count: 300_000))
    }
}
