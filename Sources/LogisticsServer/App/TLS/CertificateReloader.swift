import Foundation
import Logging
import ServiceLifecycle

/// Reloads the TLS certificate and key on SIGHUP, the usual signal a renewal hook sends (`systemctl reload`,
/// certbot's `--deploy-hook`), so renewing never restarts the server or drops its sockets.
struct CertificateReloader: Service {
    let identity: TLSIdentity
    let logger: Logger

    func run() async throws {
        let (hangups, received) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // The default action of SIGHUP ends the process; the dispatch source needs it ignored to see it instead.
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP)
        source.setEventHandler { received.yield() }
        source.resume()
        defer { source.cancel() }
        for await _ in hangups.cancelOnGracefulShutdown() {
            reload()
        }
    }

    func reload() {
        do {
            try identity.reload()
            logger.notice(
                "TLS certificate reloaded", metadata: ["certificate": .string(identity.description)])
        } catch {
            logger.error(
                "TLS certificate not reloaded, still using the previous one: \(error)",
                metadata: ["certificate": .string(identity.description)])
        }
    }
}
