//! The schema: migrations applied in order (`PRAGMA user_version` counts them) and the settings
//! every connection gets.

use super::{StoreError, internal};
use rusqlite::Connection;

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: the initial schema.
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
    // 2: usage events of search indexes (decision 17), one row per recorded event; `kind` is
    // query, update, rerank, embed or size.
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
];

/// Removes the runs that entered the DLQ and have no entry left at or after `?1` (retention).
pub(super) const EXPIRED_RUNS_DELETE: &str = "DELETE FROM runs WHERE workflow_run_id IN (
         SELECT workflow_run_id FROM dlq WHERE created_at < ?1
         EXCEPT SELECT workflow_run_id FROM dlq WHERE created_at >= ?1)";

pub(super) fn configure(connection: &Connection) -> Result<(), StoreError> {
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

/// The schema version of the file; a version newer than this courier knows is refused.
pub(super) fn schema_version(connection: &Connection) -> Result<usize, StoreError> {
    let version: usize = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if version > MIGRATIONS.len() {
        return Err(internal(format!(
            "the database has schema version {version}, newer than this courier ({}); use a newer courier",
            MIGRATIONS.len()
        )));
    }
    Ok(version)
}

pub(super) fn migrate(connection: &mut Connection) -> Result<(), StoreError> {
    let version = schema_version(connection)?;
    if version == 0 {
        // Set before the first table exists (it cannot change later without a VACUUM): lets a
        // full store give the pages of deleted entries back to the filesystem.
        connection.execute_batch("PRAGMA auto_vacuum = INCREMENTAL")?;
    }
    for (index, migration) in MIGRATIONS.iter().enumerate().skip(version) {
        let transaction = connection.transaction()?;
        transaction.execute_batch(migration)?;
        transaction.pragma_update(None, "user_version", index + 1)?;
        transaction.commit()?;
    }
    Ok(())
}
