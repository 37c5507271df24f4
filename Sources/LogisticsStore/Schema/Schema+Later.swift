import Foundation

extension Schema {
    /// Batching, learned speeds and ETAs, partitions, people and sign-in, ratings (versions 12 on).
    static let laterMigrations: [Migration] = [
        Migration(
            version: 12, name: "batching: a rider's trip holds several tasks, their stops ranked in one sequence",
            common: [
                "ALTER TABLE tasks ADD COLUMN pickup_rank INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE tasks ADD COLUMN dropoff_rank INTEGER NOT NULL DEFAULT 1",
                "ALTER TABLE offers ADD COLUMN trip_plan TEXT",
                // One unfinished task per rider is now the acceptance's rule unless batching planned the trip;
                // the rider row's compare-and-set and the trip check guard it.
                "DROP INDEX tasks_one_active_per_rider",
            ]
        ),
        Migration(
            version: 13, name: "learned speeds: samples per road segment and quarter hour of the week",
            common: [
                """
                CREATE TABLE learned_speeds (
                    profile TEXT NOT NULL,
                    from_node BIGINT NOT NULL,
                    to_node BIGINT NOT NULL,
                    slot INTEGER NOT NULL,
                    pace_sum DOUBLE PRECISION NOT NULL,
                    samples BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    PRIMARY KEY (profile, from_node, to_node, slot)
                )
                """,
                "CREATE INDEX learned_speeds_changed ON learned_speeds (profile, updated_at)",
            ]
        ),
        Migration(
            version: 14, name: "ETA accuracy: the ETAs promised on the way to the customer, next to the arrival",
            common: [
                """
                CREATE TABLE eta_predictions (
                    order_id TEXT NOT NULL REFERENCES orders (id),
                    predicted_at BIGINT NOT NULL,
                    remaining_s DOUBLE PRECISION NOT NULL,
                    remaining_m DOUBLE PRECISION NOT NULL,
                    arrived_at BIGINT,
                    PRIMARY KEY (order_id, predicted_at)
                )
                """,
                "CREATE INDEX eta_predictions_settled ON eta_predictions (predicted_at) WHERE arrived_at IS NOT NULL",
            ]
        ),
        Migration(
            version: 15, name: "one index fewer on every stored fix",
            common: [
                // The unique (rider_id, recorded_at, lat, lon) index of version 4 serves every lookup this one did;
                // keeping both cost a second index update on every stored fix.
                "DROP INDEX rider_locations_rider_time"
            ]
        ),
        Migration(
            version: 16, name: "rider location fixes partitioned by the UTC day they were recorded (PostgreSQL)",
            common: [],
            // A country's history is ~86 GB a day (docs/performance.md): retention drops a day's partition whole
            // instead of deleting its rows. The existing table becomes the default partition, with its rows and
            // indexes untouched: no copy, so the upgrade takes as long for a billion fixes as for none.
            // Housekeeping makes the days (`rollLocationPartitions`); the old fixes go row by row as they expire.
            // No primary key on the parent: it would have to hold `recorded_at` and be built over the old rows.
            postgresOnly: [
                "ALTER TABLE rider_locations RENAME TO rider_locations_default",
                "ALTER INDEX rider_locations_pkey RENAME TO rider_locations_default_pkey",
                "ALTER INDEX rider_locations_fix RENAME TO rider_locations_default_fix",
                "ALTER INDEX rider_locations_order_time RENAME TO rider_locations_default_order_time",
                "ALTER INDEX rider_locations_received RENAME TO rider_locations_default_received",
                """
                CREATE TABLE rider_locations (
                    id BIGINT NOT NULL DEFAULT nextval('rider_locations_id_seq'),
                    rider_id TEXT NOT NULL REFERENCES riders (id), task_id TEXT, order_id TEXT,
                    lat DOUBLE PRECISION NOT NULL, lon DOUBLE PRECISION NOT NULL, accuracy_m DOUBLE PRECISION,
                    speed_mps DOUBLE PRECISION, heading_deg DOUBLE PRECISION,
                    recorded_at BIGINT NOT NULL, received_at BIGINT NOT NULL
                ) PARTITION BY RANGE (recorded_at)
                """,
                "ALTER SEQUENCE rider_locations_id_seq OWNED BY rider_locations.id",
                "CREATE UNIQUE INDEX rider_locations_fix ON rider_locations (rider_id, recorded_at, lat, lon)",
                "CREATE INDEX rider_locations_order_time ON rider_locations (order_id, recorded_at)",
                "CREATE INDEX rider_locations_received ON rider_locations (received_at)",
                // The parent's indexes and foreign key find their twins on the old table and take them over.
                "ALTER TABLE rider_locations ATTACH PARTITION rider_locations_default DEFAULT",
            ]
        ),
        Migration(
            version: 17, name: "indexes on what stays small: riders' unfinished tasks, suspended riders, revoked links",
            common: [
                // Every group commit of fixes asks for its riders' unfinished tasks; the whole-table index walked
                // every task a rider ever finished, and PostgreSQL chose a scan of all tasks (a cost per commit
                // growing with the business record, which is never pruned).
                """
                CREATE INDEX tasks_unfinished_rider ON tasks (rider_id)
                WHERE status NOT IN ('DELIVERED', 'CANCELLED', 'FAILED')
                """,
                // The watch on open sockets asks twice a second which of 500 riders are suspended, or which links
                // are revoked: almost none are, so these indexes are nearly empty and each question cheap.
                "CREATE INDEX riders_suspended ON riders (id) WHERE suspended <> 0",
                "CREATE INDEX tracking_links_revoked ON tracking_links (id) WHERE revoked_at IS NOT NULL",
            ]
        ),
        Migration(
            version: 18, name: "no foreign key from stored fixes to riders (PostgreSQL)",
            common: [],
            // The key's check locked every fix's rider row (`FOR KEY SHARE`) in the transaction that then updates
            // that row's position: a large share of the insert, the largest statement of the group commit. Every rider
            // who can send a fix was provisioned when first admitted, and riders are never deleted, so the check
            // never refused one. Dropped on the parent, it goes from every partition with it.
            // PostgreSQL named the parent's key when version 16 made it, beside the old table's: looked up.
            postgresOnly: [
                """
                DO $$
                DECLARE key_name TEXT;
                BEGIN
                    FOR key_name IN SELECT conname FROM pg_constraint
                        WHERE conrelid = 'rider_locations'::regclass AND contype = 'f'
                    LOOP
                        EXECUTE format('ALTER TABLE rider_locations DROP CONSTRAINT %I', key_name);
                    END LOOP;
                END $$
                """
            ]
        ),
        Migration(
            version: 19, name: "orders remember when their customer's personal data was anonymised",
            common: ["ALTER TABLE orders ADD COLUMN anonymised_at BIGINT"]
        ),
        Migration(
            version: 20, name: "order events by when they were received, for the dispatcher's feed",
            common: ["CREATE INDEX order_events_received ON order_events (received_at)"]
        ),
        Migration(
            version: 21, name: "an order may have a task after another: a reassigned order's next rider",
            common: [],
            // SQLite cannot drop a column's UNIQUE: the table is made again without it, rows and ids as they were.
            sqliteOnly: [
                """
                CREATE TABLE tasks_v21 (
                    id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders (id),
                    rider_id TEXT NOT NULL REFERENCES riders (id), offer_id TEXT, status TEXT NOT NULL,
                    accepted_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
                    pod_accepted INTEGER NOT NULL DEFAULT 0, pod_override INTEGER NOT NULL DEFAULT 0,
                    otp_failed_attempts INTEGER NOT NULL DEFAULT 0,
                    failure_approved INTEGER NOT NULL DEFAULT 0, issue_reported_at BIGINT,
                    pickup_rank INTEGER NOT NULL DEFAULT 0, dropoff_rank INTEGER NOT NULL DEFAULT 1)
                """,
                """
                INSERT INTO tasks_v21 (id, order_id, rider_id, offer_id, status, accepted_at, updated_at, pod_accepted,
                    pod_override, otp_failed_attempts, failure_approved, issue_reported_at, pickup_rank, dropoff_rank)
                SELECT id, order_id, rider_id, offer_id, status, accepted_at, updated_at, pod_accepted, pod_override,
                    otp_failed_attempts, failure_approved, issue_reported_at, pickup_rank, dropoff_rank
                FROM tasks
                """,
                "DROP TABLE tasks",
                "ALTER TABLE tasks_v21 RENAME TO tasks",
                "CREATE INDEX tasks_rider ON tasks (rider_id, status)",
                """
                CREATE INDEX tasks_unfinished_rider ON tasks (rider_id)
                WHERE status NOT IN ('DELIVERED', 'CANCELLED', 'FAILED')
                """,
                "CREATE INDEX tasks_order ON tasks (order_id)",
                """
                CREATE UNIQUE INDEX tasks_one_unfinished_per_order ON tasks (order_id)
                WHERE status NOT IN ('DELIVERED', 'CANCELLED', 'FAILED')
                """,
            ],
            postgresOnly: [
                "ALTER TABLE tasks DROP CONSTRAINT tasks_order_id_key",
                "CREATE INDEX tasks_order ON tasks (order_id)",
                """
                CREATE UNIQUE INDEX tasks_one_unfinished_per_order ON tasks (order_id)
                WHERE status NOT IN ('DELIVERED', 'CANCELLED', 'FAILED')
                """,
            ],
            sqliteRebuildsTable: true
        ),
        Migration(
            version: 22, name: "a task returned to the store is finished: the partial indexes say so",
            common: [
                "DROP INDEX tasks_unfinished_rider",
                """
                CREATE INDEX tasks_unfinished_rider ON tasks (rider_id)
                WHERE status NOT IN ('DELIVERED', 'CANCELLED', 'FAILED', 'RETURNED_TO_STORE')
                """,
                "DROP INDEX tasks_one_unfinished_per_order",
                """
                CREATE UNIQUE INDEX tasks_one_unfinished_per_order ON tasks (order_id)
                WHERE status NOT IN ('DELIVERED', 'CANCELLED', 'FAILED', 'RETURNED_TO_STORE')
                """,
            ]
        ),
        Migration(
            version: 23, name: "people, sign-in codes, sessions and refresh tokens",
            common: [
                """
                CREATE TABLE people (
                    id TEXT PRIMARY KEY, role TEXT NOT NULL, name TEXT NOT NULL, phone TEXT UNIQUE, vendor_id TEXT,
                    vehicle TEXT, suspended_at BIGINT, created_by TEXT, created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL)
                """,
                "CREATE INDEX people_role_name ON people (role, name, id)",
                "CREATE INDEX people_vendor ON people (vendor_id)",
                // Riders first met through tokens become people without phones; they keep their ids.
                """
                INSERT INTO people (id, role, name, created_at, updated_at)
                SELECT id, 'rider', COALESCE(name, 'Rider ' || SUBSTR(id, 1, 8)), created_at, updated_at FROM riders
                """,
                "ALTER TABLE vendors ADD COLUMN phone TEXT",
                // One live code per phone; only its keyed hash is kept.
                """
                CREATE TABLE sign_in_codes (
                    phone TEXT PRIMARY KEY, code_hash TEXT NOT NULL, expires_at BIGINT NOT NULL,
                    failed_attempts INTEGER NOT NULL DEFAULT 0, created_at BIGINT NOT NULL)
                """,
                // Every code request, for a person's phone or not: the send limit must not tell them apart.
                "CREATE TABLE sign_in_requests (id AUTO_ID, phone TEXT NOT NULL, requested_at BIGINT NOT NULL)",
                "CREATE INDEX sign_in_requests_phone ON sign_in_requests (phone, requested_at)",
                """
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY, person_id TEXT NOT NULL, role TEXT NOT NULL, subject TEXT NOT NULL,
                    created_at BIGINT NOT NULL, last_used_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
                    revoked_at BIGINT, revoked_reason TEXT, user_agent TEXT)
                """,
                "CREATE INDEX sessions_person ON sessions (person_id, created_at)",
                """
                CREATE TABLE refresh_tokens (
                    token_hash TEXT PRIMARY KEY, session_id TEXT NOT NULL, created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL, spent_at BIGINT)
                """,
                "CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id)",
            ]
        ),
        Migration(
            version: 24, name: "a provider's id and status for each notification sent (Twilio's status callbacks)",
            common: [
                "ALTER TABLE notification_deliveries ADD COLUMN provider_id TEXT",
                "ALTER TABLE notification_deliveries ADD COLUMN provider_status TEXT",
                "CREATE INDEX notification_deliveries_provider ON notification_deliveries (provider_id)",
            ]
        ),
        Migration(
            version: 25, name: "customers' texts: their language and channels, opt-outs by phone, fallbacks",
            common: [
                "ALTER TABLE orders ADD COLUMN customer_locale TEXT",
                // A comma-separated list of channels, most preferred first; NULL is the server's default.
                "ALTER TABLE orders ADD COLUMN customer_notify TEXT",
                // A phone that answered STOP gets no customer texts until it answers START, whatever the order.
                "CREATE TABLE text_opt_outs (phone TEXT PRIMARY KEY, opted_out_at BIGINT NOT NULL, source TEXT NOT NULL)",
                // The delivery on the next channel made when this one failed: one fallback per message.
                "ALTER TABLE notification_deliveries ADD COLUMN fallback_of BIGINT",
                "ALTER TABLE notification_deliveries ADD COLUMN fallback_channel TEXT",
                "CREATE INDEX notification_deliveries_order_id ON notification_deliveries (order_id, id)",
            ]
        ),
        Migration(
            version: 26, name: "the customer's rating of a delivered order, one per order, counted for its rider",
            common: [
                // The order id as the key: a second rating is refused, not stored beside the first.
                """
                CREATE TABLE delivery_ratings (
                    order_id TEXT PRIMARY KEY REFERENCES orders (id), rider_id TEXT,
                    stars INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5), comment TEXT, rated_at BIGINT NOT NULL)
                """,
                "CREATE INDEX delivery_ratings_rider ON delivery_ratings (rider_id, rated_at)",
            ]
        ),
        Migration(
            version: 27, name: "providers' receipts that come before the message's id is recorded",
            common: [
                """
                CREATE TABLE provider_receipts (
                    id AUTO_ID, channel TEXT NOT NULL, provider_id TEXT NOT NULL, status TEXT NOT NULL, error TEXT,
                    received_at BIGINT NOT NULL)
                """,
                "CREATE INDEX provider_receipts_message ON provider_receipts (channel, provider_id)",
                "CREATE INDEX provider_receipts_received ON provider_receipts (received_at)",
            ]
        ),
        Migration(
            version: 28, name: "orders for a registered store, whoever created them, linked to it",
            common: [
                // Orders a dispatcher created before orders named their store: the store's staff never saw them.
                // The same name (case aside) within about 50 m of the registered place is the same store; of two
                // such stores the older one takes the order.
                """
                UPDATE orders SET vendor_id = (
                    SELECT v.id FROM vendors v
                    WHERE LOWER(TRIM(v.name)) = LOWER(TRIM(orders.vendor_name)) AND v.lat IS NOT NULL
                        AND ABS(v.lat - orders.vendor_lat) < 0.00045 AND ABS(v.lon - orders.vendor_lon) < 0.00065
                    ORDER BY v.created_at, v.id LIMIT 1)
                WHERE vendor_id IS NULL AND EXISTS (
                    SELECT 1 FROM vendors v
                    WHERE LOWER(TRIM(v.name)) = LOWER(TRIM(orders.vendor_name)) AND v.lat IS NOT NULL
                        AND ABS(v.lat - orders.vendor_lat) < 0.00045 AND ABS(v.lon - orders.vendor_lon) < 0.00065)
                """,
                "CREATE INDEX orders_vendor ON orders (vendor_id, created_at)",
            ]
        ),
    ]
}
