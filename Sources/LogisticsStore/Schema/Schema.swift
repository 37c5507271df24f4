/// The schema, as an append-only list of migrations. Never edit a released migration; add one.
enum Schema {
    /// Every migration in order; a version is never changed once released, only followed by another.
    static let migrations: [Migration] = firstMigrations + laterMigrations

    /// The core tables, tracking and notifications, then automatic dispatch (versions 1 to 11).
    static let firstMigrations: [Migration] = [
        Migration(
            version: 1, name: "core tables",
            common: [
                """
                CREATE TABLE riders (
                    id TEXT PRIMARY KEY, name TEXT, availability TEXT NOT NULL DEFAULT 'OFFLINE',
                    suspended INTEGER NOT NULL DEFAULT 0, active_task_id TEXT,
                    last_lat DOUBLE PRECISION, last_lon DOUBLE PRECISION, last_fix_at BIGINT,
                    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)
                """,
                "CREATE INDEX riders_availability ON riders (availability)",
                """
                CREATE TABLE customers (
                    id TEXT PRIMARY KEY, name TEXT, phone TEXT, created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE vendors (
                    id TEXT PRIMARY KEY, name TEXT NOT NULL, address TEXT, lat DOUBLE PRECISION,
                    lon DOUBLE PRECISION, created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE orders (
                    id TEXT PRIMARY KEY, external_ref TEXT, created_by TEXT NOT NULL,
                    vendor_id TEXT REFERENCES vendors (id),
                    vendor_name TEXT NOT NULL, vendor_address TEXT NOT NULL,
                    vendor_lat DOUBLE PRECISION NOT NULL, vendor_lon DOUBLE PRECISION NOT NULL,
                    customer_id TEXT NOT NULL REFERENCES customers (id), customer_name TEXT NOT NULL,
                    customer_phone TEXT NOT NULL, customer_address TEXT NOT NULL,
                    customer_lat DOUBLE PRECISION NOT NULL, customer_lon DOUBLE PRECISION NOT NULL,
                    pod_type TEXT NOT NULL, notes TEXT, status TEXT NOT NULL,
                    assigned_rider_id TEXT REFERENCES riders (id), task_id TEXT,
                    otp_seed TEXT, otp_hash TEXT, cancel_reason TEXT,
                    last_seq BIGINT NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)
                """,
                "CREATE INDEX orders_status_created ON orders (status, created_at, id)",
                "CREATE INDEX orders_created ON orders (created_at, id)",
                "CREATE INDEX orders_customer ON orders (customer_id)",
                """
                CREATE TABLE offers (
                    id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders (id),
                    rider_id TEXT NOT NULL REFERENCES riders (id), status TEXT NOT NULL,
                    created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, closed_at BIGINT)
                """,
                "CREATE INDEX offers_rider_status ON offers (rider_id, status)",
                "CREATE INDEX offers_order_status ON offers (order_id, status)",
                """
                CREATE TABLE tasks (
                    id TEXT PRIMARY KEY, order_id TEXT NOT NULL UNIQUE REFERENCES orders (id),
                    rider_id TEXT NOT NULL REFERENCES riders (id), offer_id TEXT, status TEXT NOT NULL,
                    accepted_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
                    pod_accepted INTEGER NOT NULL DEFAULT 0, pod_override INTEGER NOT NULL DEFAULT 0,
                    otp_failed_attempts INTEGER NOT NULL DEFAULT 0,
                    failure_approved INTEGER NOT NULL DEFAULT 0, issue_reported_at BIGINT)
                """,
                // Defence in depth under the compare-and-set: a rider can hold one unfinished task.
                """
                CREATE UNIQUE INDEX tasks_one_active_per_rider ON tasks (rider_id)
                WHERE status NOT IN ('DELIVERED', 'CANCELLED', 'FAILED')
                """,
                """
                CREATE TABLE order_events (
                    id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders (id), task_id TEXT,
                    seq BIGINT NOT NULL, type TEXT NOT NULL, status TEXT,
                    occurred_at BIGINT NOT NULL, received_at BIGINT NOT NULL,
                    lat DOUBLE PRECISION, lon DOUBLE PRECISION, accuracy_m DOUBLE PRECISION,
                    actor_id TEXT NOT NULL, actor_role TEXT NOT NULL,
                    geofence_distance_m DOUBLE PRECISION, geofence_override INTEGER NOT NULL DEFAULT 0,
                    details TEXT NOT NULL DEFAULT '{}',
                    UNIQUE (order_id, seq))
                """,
                """
                CREATE TABLE outbox (
                    id AUTO_ID, event_id TEXT NOT NULL, order_id TEXT NOT NULL, topic TEXT NOT NULL,
                    recipient_id TEXT, recipient_role TEXT, title TEXT, body TEXT,
                    payload TEXT NOT NULL, created_at BIGINT NOT NULL, sent_at BIGINT,
                    attempts INTEGER NOT NULL DEFAULT 0)
                """,
                "CREATE INDEX outbox_pending ON outbox (sent_at, id)",
                "CREATE INDEX outbox_order ON outbox (order_id, id)",
                """
                CREATE TABLE idempotency_keys (
                    principal TEXT NOT NULL, idempotency_key TEXT NOT NULL, request_hash TEXT NOT NULL,
                    status INTEGER NOT NULL DEFAULT 0, response_body TEXT, content_type TEXT,
                    location TEXT, created_at BIGINT NOT NULL,
                    PRIMARY KEY (principal, idempotency_key))
                """,
            ],
            sqliteOnly: [
                """
                CREATE TRIGGER order_events_no_update BEFORE UPDATE ON order_events
                BEGIN SELECT RAISE(ABORT, 'order_events is append-only'); END
                """,
                """
                CREATE TRIGGER order_events_no_delete BEFORE DELETE ON order_events
                BEGIN SELECT RAISE(ABORT, 'order_events is append-only'); END
                """,
            ],
            postgresOnly: [
                """
                CREATE FUNCTION order_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'order_events is append-only'; END $$
                """,
                """
                CREATE TRIGGER order_events_no_change BEFORE UPDATE OR DELETE ON order_events
                FOR EACH ROW EXECUTE FUNCTION order_events_append_only()
                """,
                """
                CREATE TRIGGER order_events_no_truncate BEFORE TRUNCATE ON order_events
                FOR EACH STATEMENT EXECUTE FUNCTION order_events_append_only()
                """,
            ]
        ),
        Migration(
            version: 2, name: "proof of delivery and delivery issues",
            common: [
                """
                CREATE TABLE proofs_of_delivery (
                    id TEXT PRIMARY KEY, task_id TEXT NOT NULL REFERENCES tasks (id),
                    order_id TEXT NOT NULL REFERENCES orders (id), type TEXT NOT NULL,
                    sha256 TEXT, content_type TEXT, byte_size BIGINT,
                    captured_at BIGINT NOT NULL, lat DOUBLE PRECISION NOT NULL, lon DOUBLE PRECISION NOT NULL,
                    accuracy_m DOUBLE PRECISION NOT NULL, created_by TEXT NOT NULL, created_at BIGINT NOT NULL)
                """,
                "CREATE INDEX proofs_of_delivery_task ON proofs_of_delivery (task_id)",
                """
                CREATE TABLE delivery_issues (
                    id TEXT PRIMARY KEY, task_id TEXT NOT NULL REFERENCES tasks (id),
                    order_id TEXT NOT NULL REFERENCES orders (id), type TEXT NOT NULL, note TEXT,
                    lat DOUBLE PRECISION, lon DOUBLE PRECISION, occurred_at BIGINT NOT NULL,
                    created_at BIGINT NOT NULL)
                """,
                "CREATE INDEX delivery_issues_task ON delivery_issues (task_id)",
                "CREATE INDEX tasks_rider ON tasks (rider_id, status)",
                "CREATE INDEX offers_open_expiry ON offers (status, expires_at)",
            ]
        ),
        Migration(
            version: 3, name: "rider location fixes",
            common: [
                """
                CREATE TABLE rider_locations (
                    id AUTO_ID, rider_id TEXT NOT NULL REFERENCES riders (id), task_id TEXT, order_id TEXT,
                    lat DOUBLE PRECISION NOT NULL, lon DOUBLE PRECISION NOT NULL, accuracy_m DOUBLE PRECISION,
                    speed_mps DOUBLE PRECISION, heading_deg DOUBLE PRECISION,
                    recorded_at BIGINT NOT NULL, received_at BIGINT NOT NULL)
                """,
                "CREATE INDEX rider_locations_rider_time ON rider_locations (rider_id, recorded_at)",
                "CREATE INDEX rider_locations_order_time ON rider_locations (order_id, recorded_at)",
            ]
        ),
        Migration(
            version: 4, name: "thinned location history and the last position shown to customers",
            common: [
                // Re-sent batches were stored twice before fixes were deduplicated; keep the first copy.
                """
                DELETE FROM rider_locations WHERE id NOT IN (
                    SELECT MIN(id) FROM rider_locations GROUP BY rider_id, recorded_at, lat, lon)
                """,
                "CREATE UNIQUE INDEX rider_locations_fix ON rider_locations (rider_id, recorded_at, lat, lon)",
                "ALTER TABLE riders ADD COLUMN shown_lat DOUBLE PRECISION",
                "ALTER TABLE riders ADD COLUMN shown_lon DOUBLE PRECISION",
                "ALTER TABLE riders ADD COLUMN shown_accuracy_m DOUBLE PRECISION",
                "ALTER TABLE riders ADD COLUMN shown_fix_at BIGINT",
            ]
        ),
        Migration(
            version: 5, name: "devices, webhooks and notification deliveries",
            common: [
                "ALTER TABLE outbox ADD COLUMN text_key TEXT",
                "ALTER TABLE outbox ADD COLUMN text_args TEXT",
                """
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, owner_role TEXT NOT NULL, device_id TEXT NOT NULL,
                    platform TEXT NOT NULL, push_token TEXT NOT NULL, locale TEXT,
                    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
                    UNIQUE (owner_id, device_id))
                """,
                "CREATE INDEX devices_push_token ON devices (push_token)",
                """
                CREATE TABLE webhooks (
                    id TEXT PRIMARY KEY, url TEXT NOT NULL, events TEXT NOT NULL, secret TEXT NOT NULL,
                    created_by TEXT NOT NULL, created_at BIGINT NOT NULL, deleted_at BIGINT)
                """,
                // One row per (outbox message, destination). Rows of one ordering key (a device or webhook and
                // one order) go out strictly in outbox order; the lease lets several instances share the work.
                """
                CREATE TABLE notification_deliveries (
                    id AUTO_ID, outbox_id BIGINT NOT NULL, event_id TEXT NOT NULL, order_id TEXT NOT NULL,
                    channel TEXT NOT NULL, destination_id TEXT NOT NULL, target TEXT NOT NULL, locale TEXT,
                    ordering_key TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at BIGINT NOT NULL, lease_owner TEXT, lease_until BIGINT, last_error TEXT,
                    budget_from BIGINT NOT NULL, created_at BIGINT NOT NULL, finished_at BIGINT,
                    UNIQUE (outbox_id, channel, destination_id))
                """,
                "CREATE INDEX notification_deliveries_due ON notification_deliveries (status, next_attempt_at)",
                "CREATE INDEX notification_deliveries_order ON notification_deliveries (ordering_key, outbox_id)",
            ]
        ),
        Migration(
            version: 6, name: "idempotency keys remember the order change they committed",
            common: ["ALTER TABLE idempotency_keys ADD COLUMN committed_order TEXT"]
        ),
        Migration(
            version: 7, name: "tracking links that can be revoked",
            common: [
                """
                CREATE TABLE tracking_links (
                    id TEXT PRIMARY KEY, order_id TEXT NOT NULL, created_by TEXT NOT NULL,
                    created_at BIGINT NOT NULL, revoked_at BIGINT)
                """,
                "CREATE INDEX tracking_links_order ON tracking_links (order_id)",
            ]
        ),
        Migration(
            version: 8, name: "indexes for the retention of location fixes and photos",
            common: [
                "CREATE INDEX rider_locations_received ON rider_locations (received_at)",
                "CREATE INDEX proofs_of_delivery_created ON proofs_of_delivery (created_at)",
            ]
        ),
        Migration(
            version: 9, name: "idempotency claims name the instance that runs them",
            common: ["ALTER TABLE idempotency_keys ADD COLUMN claimed_by BIGINT"]
        ),
        Migration(
            version: 10, name: "automatic dispatch: offers made by it, orders handed to dispatchers, riders' wait",
            common: [
                "ALTER TABLE offers ADD COLUMN automatic INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE orders ADD COLUMN dispatch_escalated_at BIGINT",
                "ALTER TABLE riders ADD COLUMN free_since BIGINT",
                "CREATE INDEX orders_status ON orders (status)",
            ]
        ),
        Migration(
            version: 11, name: "preparation times: when the vendor expects an order ready, and when it said so",
            common: [
                "ALTER TABLE orders ADD COLUMN expected_ready_at BIGINT",
                "ALTER TABLE orders ADD COLUMN ready_at BIGINT",
                // Orders marked ready before this column: their last change is the best time there is.
                """
                UPDATE orders SET ready_at = updated_at
                WHERE status NOT IN ('PENDING_VENDOR_ACCEPTANCE', 'PREPARING', 'CANCELLED')
                """,
            ]
        ),
    ]
}
