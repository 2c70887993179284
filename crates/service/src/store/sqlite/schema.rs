//! The schema: migrations applied in order by `rusqlite_migration` and the settings every
//! connection gets.
//!
//! `rusqlite_migration` keeps its bookkeeping where the hand-written migrations before it did:
//! `PRAGMA user_version` is the number of migrations applied, so a database written by an older
//! courier opens and continues from where it stopped (`crates/service/tests/store_migrations.rs`
//! holds files made by the old code to that). Migrations are only ever appended, never edited.

use super::{StoreError, internal};
use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
const MIGRATION_LIST: &[M<'static>] = &[
    // 1: the initial schema.
    M::up(
        "CREATE TABLE account (
         id INTEGER PRIMARY KEY CHECK (id = 1),
         record TEXT NOT NULL,
         management_key TEXT NOT NULL
     );
     CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
     CREATE TABLE dlq (
         dlq_id TEXT NOT NULL UNIQUE,
         created_at INTEGER NOT NULL,
         workflow_url TEXT NOT NULL,
         workflow_run_id TEXT NOT NULL,
         workflow_created_at INTEGER NOT NULL,
         failure_state TEXT,
         caller_ip TEXT,
         flow_control_key TEXT,
         record TEXT NOT NULL
     );
     CREATE INDEX dlq_by_created_at ON dlq (created_at, dlq_id);
     CREATE INDEX dlq_by_workflow_url ON dlq (workflow_url, dlq_id);
     CREATE INDEX dlq_by_run ON dlq (workflow_run_id, dlq_id);
     CREATE INDEX dlq_by_run_created_at ON dlq (workflow_created_at, dlq_id);
     CREATE INDEX dlq_by_failure_state ON dlq (failure_state, dlq_id);
     CREATE INDEX dlq_by_caller_ip ON dlq (caller_ip, dlq_id);
     CREATE INDEX dlq_by_flow_control_key ON dlq (flow_control_key, dlq_id);
     CREATE TABLE dlq_labels (
         label TEXT NOT NULL,
         dlq_id TEXT NOT NULL REFERENCES dlq (dlq_id) ON DELETE CASCADE,
         PRIMARY KEY (label, dlq_id)
     ) WITHOUT ROWID;
     CREATE INDEX dlq_labels_by_entry ON dlq_labels (dlq_id);
     CREATE TABLE runs (
         workflow_run_id TEXT PRIMARY KEY,
         workflow_url TEXT NOT NULL,
         workflow_created_at INTEGER NOT NULL
     ) WITHOUT ROWID;
     CREATE TABLE url_groups (name TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID;
     CREATE TABLE search_indexes (id TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID;
     CREATE TABLE usage (
         metric TEXT NOT NULL,
         minute INTEGER NOT NULL,
         value REAL NOT NULL,
         PRIMARY KEY (metric, minute)
     ) WITHOUT ROWID;",
    ),
    // 2: usage events of search indexes (decision 17), one row per recorded event; `kind` is
    // query, update, rerank, embed or size.
    M::up(
        "CREATE TABLE index_usage (
         index_id TEXT NOT NULL,
         at INTEGER NOT NULL,
         kind TEXT NOT NULL,
         count INTEGER NOT NULL DEFAULT 1,
         latency_ms REAL,
         bytes INTEGER NOT NULL DEFAULT 0,
         vector_count INTEGER,
         data_size INTEGER,
         pending INTEGER
     );
     CREATE INDEX index_usage_by_time ON index_usage (index_id, at);
     CREATE INDEX index_usage_sizes ON index_usage (index_id, kind, at);",
    ),
];

const MIGRATIONS: Migrations<'static> = Migrations::from_slice(MIGRATION_LIST);

/// Removes the runs that entered the DLQ and have no entry left at or after `?1` (retention).
pub(super) const EXPIRED_RUNS_DELETE: &str = "DELETE FROM runs WHERE workflow_run_id IN (
         SELECT workflow_run_id FROM dlq WHERE created_at < ?1
         EXCEPT SELECT workflow_run_id FROM dlq WHERE created_at >= ?1)";

fn configure(connection: &Connection) -> Result<(), StoreError> {
    connection
        .execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = FULL;
             PRAGMA foreign_keys = ON;
             PRAGMA busy_timeout = 10000;
             PRAGMA cache_size = -65536;",
        )
        .map_err(StoreError::from)
}

/// The number of migrations, which is the schema version of an up-to-date database.
const SCHEMA_VERSION: usize = MIGRATION_LIST.len();

/// Brings the writer's file to the current schema with the connection settings: refuses a file
/// of a newer courier before anything is written to it (switching it to WAL mode would already
/// change its header), and on a new file sets incremental auto-vacuum before WAL mode and the
/// first table (after either, SQLite keeps the setting it had: none).
pub(super) fn prepare(connection: &mut Connection) -> Result<(), StoreError> {
    let version = schema_version(connection)?;
    if version == 0 {
        // Lets a full store give the pages of deleted entries back to the filesystem.
        connection.execute_batch("PRAGMA auto_vacuum = INCREMENTAL")?;
    }
    configure(connection)?;
    MIGRATIONS
        .to_latest(connection)
        .map_err(|error| match error {
            rusqlite_migration::Error::RusqliteError { err, .. } => StoreError::from(err),
            other => internal(format!("migrating the database: {other}")),
        })
}

/// The schema version of the file; a version newer than this courier knows is refused.
fn schema_version(connection: &Connection) -> Result<usize, StoreError> {
    let version: usize = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if version > SCHEMA_VERSION {
        // Said here rather than by `rusqlite_migration` (`DatabaseTooFarAhead`), which names
        // neither version nor what to do.
        return Err(internal(format!(
            "the database has schema version {version}, newer than this courier ({SCHEMA_VERSION}); use a newer courier"
        )));
    }
    Ok(version)
}
