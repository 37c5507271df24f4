/// Everything the service persists, as one value for the code that builds the store: each collaborator takes only
/// the part it uses. One SQL implementation serves SQLite and PostgreSQL; each state change runs in one transaction
/// with its event-log and outbox rows.
public typealias LogisticsRepository = RiderRepository & OrderRepository & OutboxRepository & IdempotencyRepository
    & TrackingLinkRepository & RetentionRepository & PeopleRepository & SignInRepository
