//! The PostgreSQL schema: migrations applied in order by refinery, which records them in its
//! `refinery_schema_history` table and refuses a database holding a migration this courier does
//! not know (a newer courier's), before anything is written. Migrations are only ever appended,
//! never edited (refinery also refuses one whose text changed after it ran).

use super::StoreError;
use postgres::Client;
use refinery_core::{Migration, Runner};

/// The migrations, in order: `(name, SQL)`, the name in refinery's `V<n>__<what>` form.
///
/// Text keys are `COLLATE "C"`: ids compare byte by byte, as on SQLite, whatever the database's
/// locale, so the list order and the cursors are the same on both stores. An entry keeps its
/// labels (its `labels` and its deprecated `label`) as an array with a GIN index, which the label
/// filter (`&&`, any of) uses. `meta.dlq_entries` is the number of rows in `dlq`, kept by a
/// trigger on every insert and delete, so the size limit is enforced without counting the table.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "V1__initial",
        r#"
CREATE TABLE account (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    record TEXT NOT NULL,
    management_key TEXT NOT NULL
);
CREATE TABLE meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
INSERT INTO meta (key, value) VALUES ('dlq_entries', 0);
CREATE SEQUENCE dlq_generated_ids;
CREATE TABLE dlq (
    seq BIGINT GENERATED ALWAYS AS IDENTITY,
    dlq_id TEXT COLLATE "C" PRIMARY KEY,
    created_at BIGINT NOT NULL,
    workflow_url TEXT COLLATE "C" NOT NULL,
    workflow_run_id TEXT COLLATE "C" NOT NULL,
    workflow_created_at BIGINT NOT NULL,
    failure_state TEXT COLLATE "C",
    caller_ip TEXT COLLATE "C",
    flow_control_key TEXT COLLATE "C",
    labels TEXT[] NOT NULL,
    record TEXT NOT NULL,
    listed TEXT NOT NULL
);
CREATE INDEX dlq_by_created_at ON dlq (created_at, dlq_id);
CREATE INDEX dlq_by_workflow_url ON dlq (workflow_url, dlq_id);
CREATE INDEX dlq_by_run ON dlq (workflow_run_id, dlq_id);
CREATE INDEX dlq_by_run_created_at ON dlq (workflow_created_at, dlq_id);
CREATE INDEX dlq_by_failure_state ON dlq (failure_state, dlq_id);
CREATE INDEX dlq_by_caller_ip ON dlq (caller_ip, dlq_id);
CREATE INDEX dlq_by_flow_control_key ON dlq (flow_control_key, dlq_id);
CREATE INDEX dlq_by_labels ON dlq USING GIN (labels);
CREATE FUNCTION dlq_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE meta SET value = value + (SELECT COUNT(*) FROM inserted) WHERE key = 'dlq_entries';
    RETURN NULL;
END $$;
CREATE FUNCTION dlq_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE meta SET value = value - (SELECT COUNT(*) FROM deleted) WHERE key = 'dlq_entries';
    RETURN NULL;
END $$;
CREATE TRIGGER dlq_counted_inserts AFTER INSERT ON dlq
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION dlq_count_inserted();
CREATE TRIGGER dlq_counted_deletes AFTER DELETE ON dlq
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION dlq_count_deleted();
CREATE TABLE runs (
    workflow_run_id TEXT COLLATE "C" PRIMARY KEY,
    workflow_url TEXT COLLATE "C" NOT NULL,
    workflow_created_at BIGINT NOT NULL
);
CREATE TABLE url_groups (name TEXT COLLATE "C" PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE search_indexes (id TEXT COLLATE "C" PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE usage (
    metric TEXT COLLATE "C" NOT NULL,
    minute BIGINT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (metric, minute)
);
CREATE TABLE index_usage (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    index_id TEXT COLLATE "C" NOT NULL,
    at BIGINT NOT NULL,
    kind TEXT NOT NULL,
    count BIGINT NOT NULL DEFAULT 1,
    latency_ms DOUBLE PRECISION,
    bytes BIGINT NOT NULL DEFAULT 0,
    vector_count BIGINT,
    data_size BIGINT,
    pending BIGINT
);
CREATE INDEX index_usage_by_time ON index_usage (index_id, at);
CREATE INDEX index_usage_sizes ON index_usage (index_id, kind, at);
"#,
    ),
    // 2: the account's request limits, one budget for every process: the requests counted in
    // the current second and UTC day. `spend_request` counts one request (unless a limit
    // refuses it) in one call, holding both rows, so concurrent processes never both take the
    // last request of a window. Its commit does not wait for the disk: a crash of the server
    // may forget a few counted requests, never data.
    (
        "V2__request_limits",
        r#"
CREATE TABLE request_windows (
    name TEXT PRIMARY KEY,
    window_start BIGINT NOT NULL,
    used BIGINT NOT NULL
);
INSERT INTO request_windows (name, window_start, used) VALUES ('day', 0, 0), ('second', 0, 0);
CREATE FUNCTION spend_request(
    second_start BIGINT, today BIGINT, per_second BIGINT, per_day BIGINT,
    OUT refused TEXT, OUT second_used BIGINT, OUT day_used BIGINT
) LANGUAGE plpgsql AS $$
DECLARE
    day_window BIGINT;
    second_window BIGINT;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    SELECT window_start, used INTO day_window, day_used
        FROM request_windows WHERE name = 'day' FOR UPDATE;
    SELECT window_start, used INTO second_window, second_used
        FROM request_windows WHERE name = 'second' FOR UPDATE;
    IF day_window <> today THEN day_used := 0; END IF;
    IF second_window <> second_start THEN second_used := 0; END IF;
    IF day_used >= per_day THEN
        refused := 'daily';
    ELSIF second_used >= per_second THEN
        refused := 'second';
    ELSE
        day_used := day_used + 1;
        second_used := second_used + 1;
    END IF;
    UPDATE request_windows SET window_start = today, used = day_used WHERE name = 'day';
    UPDATE request_windows SET window_start = second_start, used = second_used WHERE name = 'second';
END $$;
"#,
    ),
    // 3: console sessions, so that a sign-in through one process holds on every other.
    (
        "V3__console_sessions",
        r#"
CREATE TABLE console_sessions (
    id TEXT PRIMARY KEY,
    csrf TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    management_key TEXT NOT NULL,
    flash TEXT
);
CREATE INDEX console_sessions_by_expiry ON console_sessions (expires_at);
"#,
    ),
    // 4: a batch of inserts counts itself once. The statement trigger updated the count's row
    // once per INSERT statement, and a transaction that updates one row n times leaves n versions
    // of it, each next update walking past the ones before: a batch of 20,000 entries took
    // minutes. A transaction that sets `courier.batch_counted` adds its inserts itself, once.
    (
        "V4__batch_counted_inserts",
        r#"
CREATE OR REPLACE FUNCTION dlq_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('courier.batch_counted', true) = 'on' THEN
        RETURN NULL;
    END IF;
    UPDATE meta SET value = value + (SELECT COUNT(*) FROM inserted) WHERE key = 'dlq_entries';
    RETURN NULL;
END $$;
"#,
    ),
];

/// The arguments of an advisory lock of courier's: the lock's class (`$1`, an `i32`) and the
/// schema, so that couriers in different schemas of one database never wait for each other.
pub(super) const SCOPED_LOCK: &str = "$1, hashtext(coalesce(current_schema(), ''))";

/// The advisory lock processes hold while migrating, so that several starting at once migrate
/// once: the others wait, then find nothing left to do.
const MIGRATION_LOCK: i32 = 1;

/// The schema version of an up-to-date database: the number of migrations.
pub(super) const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// Brings the database to the current schema, refusing a newer one.
pub(super) fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let migrations = MIGRATIONS
        .iter()
        .map(|(name, sql)| Migration::unapplied(name, sql))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| StoreError::Internal(format!("a migration is malformed: {error}")))?;
    client.execute(
        &format!("SELECT pg_advisory_lock({SCOPED_LOCK})"),
        &[&MIGRATION_LOCK],
    )?;
    let result = Runner::new(&migrations)
        // Each migration in its own transaction, recorded with it.
        .set_grouped(false)
        .run(client)
        .map(drop)
        .map_err(|error| match error.kind() {
            refinery_core::error::Kind::MissingVersion(migration) => StoreError::Internal(format!(
                "the database has schema migration {} ({}), newer than this courier ({SCHEMA_VERSION}); use a newer courier",
                migration.version(),
                migration.name()
            )),
            _ => StoreError::Internal(format!("migrating the database: {error}")),
        });
    let unlocked = client.execute(
        &format!("SELECT pg_advisory_unlock({SCOPED_LOCK})"),
        &[&MIGRATION_LOCK],
    );
    result?;
    unlocked?;
    Ok(())
}
