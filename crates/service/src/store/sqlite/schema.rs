//! The schema: migrations applied in order by `rusqlite_migration` and the settings every
//! connection gets.
//!
//! `rusqlite_migration` keeps its bookkeeping where the hand-written migrations before it did:
//! `PRAGMA user_version` is the number of migrations applied, so a database written by an older
//! courier opens and continues from where it stopped (`crates/service/tests/it/store_migrations.rs`
//! holds files made by the old code to that). Migrations are only ever appended, never edited.

use super::{Durability, StoreError, internal};
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
    // 2: usage events of search indexes (`docs/decisions.md#d17-index-statistics`), one row per
    // recorded event; `kind` is query, update, rerank, embed or size.
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
    // 3: deletes mark, the upkeep reclaims. Removing a row from `dlq` rewrites a page of the
    // table, of each of its seven indexes and of `dlq_labels`, so a bulk delete of scattered
    // entries wrote about two pages per entry (measured in BENCHMARKS.md, "Findings"). Instead
    // `dlq` is a view of the rows without a tombstone, a delete adds tombstones (`MARK_DELETED`;
    // keys in rowid order, so a batch touches few pages), and
    // `Store::reclaim_deleted` removes marked rows with their tombstones in small transactions.
    // Every read through `dlq` honours the marks at once; a `DELETE FROM dlq` is an error (a
    // view), so no path can skip the marking. Inserts and the physical removal name `dlq_rows`.
    M::up(
        "ALTER TABLE dlq RENAME TO dlq_rows;
     CREATE TABLE dlq_tombstones (seq INTEGER PRIMARY KEY);
     CREATE VIEW dlq AS
         SELECT dlq_rows.rowid AS seq, dlq_rows.*
         FROM dlq_rows
         WHERE NOT EXISTS (SELECT 1 FROM dlq_tombstones WHERE dlq_tombstones.seq = dlq_rows.rowid);
",
    ),
    // 4: each entry's list shape (`WorkflowDLQMessage`) as JSON, written once at insert, so a
    // list page is stored bytes joined, not 100 records parsed and re-serialised. `record` is
    // already the full shape (2.2) as serde writes it. Rows of older files have no list shape;
    // reads make it from `record`. (A spec change that alters a stored shape needs a migration
    // that rewrites both columns: the stored bytes are served as they are.) The view is made
    // again so that its `dlq_rows.*` includes the new column.
    M::up(
        "ALTER TABLE dlq_rows ADD COLUMN listed TEXT;
     DROP VIEW dlq;
     CREATE VIEW dlq AS
         SELECT dlq_rows.rowid AS seq, dlq_rows.*
         FROM dlq_rows
         WHERE NOT EXISTS (SELECT 1 FROM dlq_tombstones WHERE dlq_tombstones.seq = dlq_rows.rowid);",
    ),
    // 5: each label row carries its entry's row number and filter columns. A page with a label
    // and another filter would otherwise walk the label's range and search an index of
    // `dlq_rows` by text id for every candidate, many times the page's size when the other
    // filter is selective. Instead the other filters are tested on the label row itself and only the
    // matches are read, by row number. An entry's filter columns never change after insert,
    // so the copies cannot drift; they go with the row (`ON DELETE CASCADE`).
    M::up(
        "ALTER TABLE dlq_labels RENAME TO dlq_labels_v1;
     CREATE TABLE dlq_labels (
         label TEXT NOT NULL,
         dlq_id TEXT NOT NULL REFERENCES dlq_rows (dlq_id) ON DELETE CASCADE,
         seq INTEGER NOT NULL,
         created_at INTEGER NOT NULL,
         workflow_url TEXT NOT NULL,
         workflow_run_id TEXT NOT NULL,
         workflow_created_at INTEGER NOT NULL,
         failure_state TEXT,
         caller_ip TEXT,
         flow_control_key TEXT,
         PRIMARY KEY (label, dlq_id)
     ) WITHOUT ROWID;
     INSERT INTO dlq_labels
         SELECT l.label, r.dlq_id, r.rowid, r.created_at, r.workflow_url, r.workflow_run_id,
                r.workflow_created_at, r.failure_state, r.caller_ip, r.flow_control_key
         FROM dlq_labels_v1 l JOIN dlq_rows r ON r.dlq_id = l.dlq_id;
     DROP TABLE dlq_labels_v1;
     CREATE INDEX dlq_labels_by_entry ON dlq_labels (dlq_id);",
    ),
];

const MIGRATIONS: Migrations<'static> = Migrations::from_slice(MIGRATION_LIST);

/// Marks the live entries the appended condition on `dlq` selects as deleted; the statement's
/// change count is the number of entries it deleted.
pub(super) const MARK_DELETED: &str =
    "INSERT OR IGNORE INTO dlq_tombstones (seq) SELECT seq FROM dlq WHERE";

/// Labels the entry stored as row `?2` with `?1`, copying the row's filter columns (see
/// migration 5).
pub(super) const LABEL_ENTRY: &str = "INSERT OR IGNORE INTO dlq_labels
         SELECT ?1, dlq_id, rowid, created_at, workflow_url, workflow_run_id, workflow_created_at,
                failure_state, caller_ip, flow_control_key
         FROM dlq_rows WHERE rowid = ?2";

/// Marks the entry stored as row `?1` deleted (for scans, which read the row number).
pub(super) const MARK_ROW_DELETED: &str = "INSERT OR IGNORE INTO dlq_tombstones (seq) VALUES (?1)";

/// Some marked entry's row number, if any entry is marked deleted.
pub(super) const ANY_MARK: &str = "SELECT seq FROM dlq_tombstones LIMIT 1";

/// Reclaims up to `?1` marked entries, oldest mark first: the rows (their labels cascade),
/// then their tombstones; both in one transaction, so a row and its mark go together.
pub(super) const RECLAIM_ROWS: &str = "DELETE FROM dlq_rows WHERE rowid IN
         (SELECT seq FROM dlq_tombstones ORDER BY seq LIMIT ?1)";
pub(super) const RECLAIM_TOMBSTONES: &str = "DELETE FROM dlq_tombstones WHERE seq IN
         (SELECT seq FROM dlq_tombstones ORDER BY seq LIMIT ?1)";

/// The account's record and its management key. Read only at start (the service keeps them),
/// on the writer, so that a start opens no reader: each connection parses the whole schema.
pub(super) const ACCOUNT_RECORD: &str = "SELECT record FROM account WHERE id = 1";
pub(super) const MANAGEMENT_KEY: &str = "SELECT management_key FROM account WHERE id = 1";

/// The record of a URL group by name, and of a search index by (lower-case) id.
pub(super) const URL_GROUP_RECORD: &str = "SELECT record FROM url_groups WHERE name = ?1";
pub(super) const INDEX_RECORD: &str = "SELECT record FROM search_indexes WHERE id = ?1";

/// The number of live entries created at or after `?1`: rows minus marked rows, both counted
/// on indexes (counting through the view would probe the tombstones once per row).
pub(super) const LIVE_COUNT: &str = "SELECT
         (SELECT COUNT(*) FROM dlq_rows WHERE created_at >= ?1)
       - (SELECT COUNT(*) FROM dlq_tombstones JOIN dlq_rows ON dlq_rows.rowid = dlq_tombstones.seq
          WHERE dlq_rows.created_at >= ?1)";

/// Removes the runs that entered the DLQ and have no entry left at or after `?1` (retention).
pub(super) const EXPIRED_RUNS_DELETE: &str = "DELETE FROM runs WHERE workflow_run_id IN (
         SELECT workflow_run_id FROM dlq WHERE created_at < ?1
         EXCEPT SELECT workflow_run_id FROM dlq WHERE created_at >= ?1)";

/// How every connection reads pages: through a map of the file (`mmap_size`, at most SQLite's
/// default ceiling of 2 GiB; the rest of a larger file is read as before), and a page cache of
/// 4 MiB for what the map does not hold: pages of the write-ahead log and a writer's changed
/// pages. A larger cache keeps filling with the writer's newly allocated pages for minutes of a
/// soak, so the heap grows long after start; a small one is full within the first minute.
///
/// Why map the file: the bundled SQLite is built with `SQLITE_ENABLE_MEMORY_MANAGEMENT`, under
/// which all connections' caches are one cache behind one mutex; a page read through the map
/// skips it, so concurrent filtered lists no longer wait for each other on that mutex. And the
/// heap no longer grows with the store, as it does with large caches of file pages. The figures
/// behind both are in BENCHMARKS.md ("Findings" and "Soak"). Mapped pages belong to the kernel's page
/// cache (RSS shows them as file-backed). SQLite only reads through the map; it writes with
/// `write()` as before.
const PAGE_SETTINGS: &str = "PRAGMA cache_size = -4096; PRAGMA mmap_size = 2147418112;";

/// The settings of a reader connection.
pub(super) fn configure_reader(connection: &Connection) -> Result<(), StoreError> {
    connection.execute_batch("PRAGMA busy_timeout = 10000;")?;
    connection
        .execute_batch(PAGE_SETTINGS)
        .map_err(StoreError::from)
}

/// All of SQLite's memory in the process, page caches included, that SQLite keeps under by
/// reusing cached pages instead of allocating more (a soft limit: nothing fails above it).
/// Without it, the five connections' caches grew whenever a transaction touched pages of the
/// write-ahead log none of them held yet, in steps of megabytes through a soak. With the 4 MiB
/// caches above SQLite stays under this limit through a soak (BENCHMARKS.md, "Soak").
const SQLITE_HEAP_SOFT_LIMIT: &str = "PRAGMA soft_heap_limit = 8388608;";

fn configure(connection: &Connection, durability: Durability) -> Result<(), StoreError> {
    let synchronous = match durability {
        Durability::Full => "FULL",
        Durability::TestOnly => "OFF",
    };
    // synchronous first: switching a new file to WAL is itself a write it governs.
    connection.execute_batch(&format!(
        "PRAGMA synchronous = {synchronous};
             PRAGMA journal_mode = WAL;
             PRAGMA foreign_keys = ON;
             PRAGMA busy_timeout = 10000;"
    ))?;
    connection.execute_batch(SQLITE_HEAP_SOFT_LIMIT)?;
    connection
        .execute_batch(PAGE_SETTINGS)
        .map_err(StoreError::from)
}

/// The number of migrations, which is the schema version of an up-to-date database.
pub(super) const SCHEMA_VERSION: usize = MIGRATION_LIST.len();

/// Brings the writer's file to the current schema with the connection settings: refuses a file
/// of a newer courier before anything is written to it (switching it to WAL mode would already
/// change its header), and on a new file sets incremental auto-vacuum before WAL mode and the
/// first table (after either, SQLite keeps the setting it had: none).
pub(super) fn prepare(
    connection: &mut Connection,
    durability: Durability,
) -> Result<(), StoreError> {
    let version = schema_version(connection)?;
    if durability == Durability::TestOnly {
        // Before the first write of a new file, which the auto-vacuum setting below is.
        connection.execute_batch("PRAGMA synchronous = OFF")?;
    }
    if version == 0 {
        // Lets a full store give the pages of deleted entries back to the filesystem.
        connection.execute_batch("PRAGMA auto_vacuum = INCREMENTAL")?;
    }
    configure(connection, durability)?;
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
