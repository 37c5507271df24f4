import Logging
import LogisticsCore
import LogisticsStore

enum WebhookSecrets {
    /// Seals secrets stored before sealing existed, and reseals those sealed under the pre-HKDF key (or by an
    /// older instance during an upgrade), at every start.
    static func sealStored(repository: any NotificationRepository, sealer: SecretSealer, logger: Logger) async throws {
        let sealed = try await repository.rewriteWebhookSecrets { stored in
            guard !SecretSealer.isCurrent(stored), let secret = try? sealer.open(stored) else { return nil }
            return sealer.seal(secret)
        }
        if sealed > 0 { logger.info("sealed stored webhook secrets", metadata: ["count": "\(sealed)"]) }
    }
}
