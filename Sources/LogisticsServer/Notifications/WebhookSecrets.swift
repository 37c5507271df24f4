import Logging
import LogisticsCore
import LogisticsStore

enum WebhookSecrets {
    /// Seals secrets stored before sealing existed (or by an older instance during an upgrade), at every start.
    static func sealStored(repository: any NotificationRepository, sealer: SecretSealer, logger: Logger) async throws {
        let sealed = try await repository.rewriteWebhookSecrets {
            SecretSealer.isSealed($0) ? nil : sealer.seal($0)
        }
        if sealed > 0 { logger.info("sealed stored webhook secrets", metadata: ["count": "\(sealed)"]) }
    }
}
