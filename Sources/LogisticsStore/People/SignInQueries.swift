import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    public func requestSignInCode(
        phone: String, codeHash: String, message: QueuedTextMessage, expiresAt: Date, now: Date
    ) async throws -> SignInCodeRequest {
        try await database.transaction { transaction in
            let windowStart = now.addingTimeInterval(-SignInCodes.sendWindow)
            let recent = try await transaction.query(
                "SELECT requested_at FROM sign_in_requests WHERE phone = ? AND requested_at > ? ORDER BY requested_at",
                [.text(phone), .date(windowStart)])
            if recent.count >= SignInCodes.sendsPerPhone, let oldest = recent.first {
                let reopens = try oldest.date("requested_at").addingTimeInterval(SignInCodes.sendWindow)
                let wait = Int(reopens.timeIntervalSince(now).rounded(.up))
                return .limited(retryAfter: min(Int(SignInCodes.sendWindow), max(1, wait)))
            }
            try await transaction.query(
                "INSERT INTO sign_in_requests (phone, requested_at) VALUES (?, ?)", [.text(phone), .date(now)])
            guard
                let person = try await transaction.first("SELECT id FROM people WHERE phone = ?", [.text(phone)])
            else { return .recorded }
            // A new code replaces the live one and its count of wrong tries: one live code per phone.
            try await transaction.query(
                """
                INSERT INTO sign_in_codes (phone, code_hash, expires_at, failed_attempts, created_at)
                VALUES (?, ?, ?, 0, ?)
                ON CONFLICT (phone) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at,
                    failed_attempts = 0, created_at = excluded.created_at
                """, [.text(phone), .text(codeHash), .date(expiresAt), .date(now)])
            var addressed = message
            addressed.recipientId = try person.uuid("id")
            try await Self.queue(addressed, now: now, in: transaction)
            return .recorded
        }
    }

    public func checkSignInCode(phone: String, now: Date, matches: @escaping @Sendable (String) -> Bool) async throws
        -> SignInCodeCheck
    {
        try await database.transaction { transaction in
            // The try is spent before the code is compared, in one statement: concurrent guesses cannot share one
            // count, so a code is compared at most five times whatever the load.
            guard
                let spent = try await transaction.first(
                    """
                    UPDATE sign_in_codes SET failed_attempts = failed_attempts + 1
                    WHERE phone = ? AND expires_at > ? AND failed_attempts < ?
                    RETURNING code_hash, failed_attempts
                    """, [.text(phone), .date(now), .int(SignInCodes.attempts)])
            else {
                let locked = try await transaction.first(
                    "SELECT 1 AS locked FROM sign_in_codes WHERE phone = ? AND expires_at > ? AND failed_attempts >= ?",
                    [.text(phone), .date(now), .int(SignInCodes.attempts)])
                return locked == nil ? .none : .locked
            }
            let tries = try spent.int("failed_attempts")
            guard matches(try spent.string("code_hash")) else {
                return tries >= SignInCodes.attempts ? .locked : .wrong(attemptsRemaining: SignInCodes.attempts - tries)
            }
            try await transaction.query("DELETE FROM sign_in_codes WHERE phone = ?", [.text(phone)])
            guard let row = try await transaction.first("\(Self.personSelect) WHERE p.phone = ?", [.text(phone)])
            else { return .none }
            return .accepted(try Person(row: row))
        }
    }

    public func startSession(_ session: SignInSession, refreshTokenHash: String, refreshExpiresAt: Date) async throws {
        try await database.transaction { transaction in
            try await transaction.query(
                """
                INSERT INTO sessions (id, person_id, role, subject, created_at, last_used_at, expires_at, user_agent)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .uuid(session.id), .uuid(session.personId), .text(session.role.rawValue), .uuid(session.subject),
                    .date(session.createdAt), .date(session.lastUsedAt), .date(session.expiresAt),
                    .text(session.userAgent),
                ])
            try await transaction.query(
                "INSERT INTO refresh_tokens (token_hash, session_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                [.text(refreshTokenHash), .uuid(session.id), .date(session.createdAt), .date(refreshExpiresAt)])
        }
    }

    public func rotateRefreshToken(hash: String, successorHash: String, successorExpiresAt: Date, now: Date)
        async throws -> RefreshOutcome
    {
        try await database.transaction { transaction in
            guard
                let token = try await transaction.first(
                    "SELECT * FROM refresh_tokens WHERE token_hash = ?\(transaction.forUpdate)", [.text(hash)]),
                let sessionRow = try await transaction.first(
                    "SELECT * FROM sessions WHERE id = ?\(transaction.forUpdate)",
                    [.text(try token.string("session_id"))])
            else { return .refused("This refresh token is not known") }
            let session = try SignInSession(row: sessionRow)
            if !token.isNull("spent_at") {
                // Someone used this token before: the client that holds the newer one, or a thief. Either way the
                // family is no longer trustworthy (OAuth 2.0 Security BCP, refresh token rotation).
                try await Self.revoke(session.id, reason: "a refresh token was used twice", now: now, in: transaction)
                return .reused
            }
            guard session.isLive(at: now), try token.date("expires_at") > now else {
                return .refused(session.whyEnded)
            }
            guard
                let personRow = try await transaction.first(
                    "\(Self.personSelect) WHERE p.id = ?", [.uuid(session.personId)])
            else { return .refused("This person no longer exists") }
            let person = try Person(row: personRow)
            if person.suspended {
                try await Self.revoke(session.id, reason: "suspended", now: now, in: transaction)
                return .suspended
            }
            try await transaction.query(
                "UPDATE refresh_tokens SET spent_at = ? WHERE token_hash = ?", [.date(now), .text(hash)])
            try await transaction.query(
                "INSERT INTO refresh_tokens (token_hash, session_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                [.text(successorHash), .uuid(session.id), .date(now), .date(successorExpiresAt)])
            let updated = try await transaction.first(
                "UPDATE sessions SET last_used_at = ?, expires_at = ? WHERE id = ? RETURNING *",
                [.date(now), .date(successorExpiresAt), .uuid(session.id)])
            return .rotated(try SignInSession(row: updated!), person)
        }
    }

    private static func revoke(_ id: UUID, reason: String, now: Date, in transaction: any SQLExecutor) async throws {
        try await transaction.query(
            "UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL",
            [.date(now), .text(reason), .uuid(id)])
    }

    public func session(id: UUID) async throws -> SignInSession? {
        try await database.first("SELECT * FROM sessions WHERE id = ?", [.uuid(id)]).map(SignInSession.init(row:))
    }

    public func sessions(personId: UUID) async throws -> [SignInSession] {
        try await database.query(
            "SELECT * FROM sessions WHERE person_id = ? ORDER BY created_at DESC, id LIMIT 200", [.uuid(personId)]
        ).map(SignInSession.init(row:))
    }

    public func revokeSession(id: UUID, reason: String, now: Date) async throws -> Bool {
        !(try await database.query(
            "UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL RETURNING id",
            [.date(now), .text(reason), .uuid(id)]
        ).isEmpty)
    }

    public func revokeSessions(personId: UUID, reason: String, now: Date) async throws -> [UUID] {
        try await database.query(
            """
            UPDATE sessions SET revoked_at = ?, revoked_reason = ?
            WHERE person_id = ? AND revoked_at IS NULL AND expires_at > ? RETURNING id
            """, [.date(now), .text(reason), .uuid(personId), .date(now)]
        ).map { try $0.uuid("id") }
    }

    public func endedSessions(among ids: Set<UUID>, now: Date) async throws -> Set<UUID> {
        guard !ids.isEmpty else { return [] }
        let list = Array(ids)
        let live = try await database.query(
            """
            SELECT id FROM sessions WHERE id IN (\(placeholders(list.count))) AND revoked_at IS NULL AND expires_at > ?
            """, list.map { .uuid($0) } + [.date(now)])
        return ids.subtracting(try live.map { try $0.uuid("id") })
    }

    public func pruneSignIn(now: Date) async throws -> Int {
        let codes = try await database.query(
            "DELETE FROM sign_in_codes WHERE expires_at <= ? RETURNING phone", [.date(now)])
        let requests = try await database.query(
            "DELETE FROM sign_in_requests WHERE requested_at <= ? RETURNING id",
            [.date(now.addingTimeInterval(-SignInCodes.sendWindow))])
        let tokens = try await database.query(
            """
            DELETE FROM refresh_tokens WHERE expires_at <= ? OR session_id IN (
                SELECT id FROM sessions WHERE revoked_at IS NOT NULL) RETURNING token_hash
            """, [.date(now)])
        return codes.count + requests.count + tokens.count
    }
}

extension SignInSession {
    init(row: SQLRow) throws {
        guard let role = Role(rawValue: try row.string("role")) else {
            throw StoreError.corrupt("session \(row.optionalString("id") ?? "?")")
        }
        self.init(
            id: try row.uuid("id"), personId: try row.uuid("person_id"), role: role, subject: try row.uuid("subject"),
            createdAt: try row.date("created_at"), lastUsedAt: try row.date("last_used_at"),
            expiresAt: try row.date("expires_at"), revokedAt: row.optionalDate("revoked_at"),
            revokedReason: row.optionalString("revoked_reason"), userAgent: row.optionalString("user_agent"))
    }
}
