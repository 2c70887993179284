//! The SQLite store: WAL, synchronous writes, one writer connection and a pool of readers.
//!
//! Entries are kept as JSON (the 2.2 shape) beside indexed columns for every filter, so a
//! listing never parses more rows than it returns. Readers run on their own connections, which
//! WAL lets proceed while a write transaction is open.

use super::{ActiveRun, DlqFilter, IndexActivity, IndexUsage, Inserted, Page, Store, StoreError};
use courier_models::{
    FailedWorkflowRun, MessagingAccount, SearchIndex, UrlGroup, UrlGroupEndpoint,
};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, params, params_from_iter};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[&str] = &[
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
const EXPIRED_RUNS_DELETE: &str = "DELETE FROM runs WHERE workflow_run_id IN (
         SELECT workflow_run_id FROM dlq WHERE created_at < ?1
         EXCEPT SELECT workflow_run_id FROM dlq WHERE created_at >= ?1)";

/// Reader connections kept open; more concurrent readers wait for one.
const READERS: usize = 4;

/// Bytes held in the reserve file beside the database (`courier.reserve`) while storage is
/// healthy. When a write finds the data directory full, the file is deleted, so that deletes
/// can run and an operator can free space through the API; it is allocated again once the
/// filesystem has room, which ends the degraded state.
///
/// Why 8 MiB: in WAL mode committed pages sit in the WAL until a checkpoint copies them into
/// the database file, which must grow for them. With SQLite's default auto-checkpoint of 1000
/// pages the WAL holds up to about 4 MiB, so on a full disk nothing (not even a delete, whose
/// own frames need room too) can proceed until the reserve lets that checkpoint finish.
pub const RESERVE_BYTES: u64 = 8 << 20;

/// Pages the database must be able to grow by (up to `max_page_count`, counting free pages) for
/// writes that add data to be tried again after the store was full.
const HEADROOM_PAGES: i64 = 16;

pub struct SqliteStore {
    path: PathBuf,
    /// The reserve file ([`RESERVE_BYTES`]).
    reserve: PathBuf,
    /// Why writes that add data are refused: set when a write found the data directory full.
    full: Mutex<Option<String>>,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
    readers_available: std::sync::Condvar,
    /// Reader connections opened so far (at most `READERS`).
    readers_opened: std::sync::atomic::AtomicUsize,
}

/// A failed SQLite call. `SQLITE_FULL` (a full filesystem, or `max_page_count` reached) is told
/// apart, so the service can answer 507 and keep deletes working.
impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> StoreError {
        if let rusqlite::Error::SqliteFailure(failure, _) = &error
            && failure.code == rusqlite::ErrorCode::DiskFull
        {
            return StoreError::Full(format!("the data directory is full: {error}"));
        }
        StoreError::Internal(error.to_string())
    }
}

/// A failure that is not SQLite's (a record that does not encode, a directory that cannot be
/// made): always a 500.
fn internal(error: impl std::fmt::Display) -> StoreError {
    StoreError::Internal(error.to_string())
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave SQLite inconsistent (transactions roll back
    // on drop), so a poisoned lock is still safe to use.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

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

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(internal)
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text)
        .map_err(|e| StoreError::Internal(format!("a stored record does not parse: {e}")))
}

/// The SQL condition and parameters of a filter (always ANDed after `created_at >= ?`), on the
/// columns of `dlq` (qualified, so the condition also works in a join). With `labels`, the
/// label filter is a correlated `EXISTS` checked row by row; without, it is left out (the
/// caller walks `dlq_labels` itself, see [`scan`]).
fn filter_sql(
    filter: &DlqFilter,
    after: Option<&str>,
    min_created_at: i64,
    labels: bool,
) -> (String, Vec<SqlValue>) {
    // Every member by name, no `..`: a filter added to the spec's group is a compile error here
    // until it is mapped, never silently ignored (which would widen a bulk delete).
    let DlqFilter {
        from_date,
        to_date,
        workflow_url,
        workflow_run_id,
        workflow_created_at,
        label,
        failure_function_state,
        caller_ip,
        flow_control_key,
    } = filter;
    let mut sql = String::from("dlq.created_at >= ?");
    let mut values = vec![SqlValue::Integer(min_created_at)];
    let mut any_of = |sql: &mut String, column: &str, items: Vec<SqlValue>| {
        if items.is_empty() {
            return;
        }
        let marks = vec!["?"; items.len()].join(", ");
        sql.push_str(&format!(" AND {column} IN ({marks})"));
        values.extend(items);
    };
    let strings = |items: &[String]| {
        items
            .iter()
            .map(|s| SqlValue::Text(s.clone()))
            .collect::<Vec<_>>()
    };
    any_of(&mut sql, "dlq.workflow_url", strings(workflow_url));
    any_of(&mut sql, "dlq.caller_ip", strings(caller_ip));
    any_of(&mut sql, "dlq.flow_control_key", strings(flow_control_key));
    any_of(
        &mut sql,
        "dlq.failure_state",
        failure_function_state
            .iter()
            .map(|s| SqlValue::Text(s.to_string()))
            .collect(),
    );
    if labels {
        any_of(
            &mut sql,
            "EXISTS (SELECT 1 FROM dlq_labels WHERE dlq_labels.dlq_id = dlq.dlq_id AND dlq_labels.label",
            strings(label),
        );
        if !label.is_empty() {
            sql.push(')');
        }
    }
    if let Some(after) = after {
        sql.push_str(" AND dlq.dlq_id > ?");
        values.push(SqlValue::Text(after.to_owned()));
    }
    if let Some(from) = *from_date {
        sql.push_str(" AND dlq.created_at >= ?");
        values.push(SqlValue::Integer(from));
    }
    if let Some(to) = *to_date {
        sql.push_str(" AND dlq.created_at <= ?");
        values.push(SqlValue::Integer(to));
    }
    if let Some(run) = workflow_run_id {
        sql.push_str(" AND dlq.workflow_run_id = ?");
        values.push(SqlValue::Text(run.clone()));
    }
    if let Some(created) = *workflow_created_at {
        sql.push_str(" AND dlq.workflow_created_at = ?");
        values.push(SqlValue::Integer(created));
    }
    (sql, values)
}

/// The queries that list the first `take` entries matching `filter` after `after`, in `dlq_id`
/// order, each selecting `(dlq_id, record)` (the record is empty unless `records`).
///
/// Without a label filter, or with a run id (a run has a handful of entries), one query on
/// `dlq` walks the index SQLite picks, checking labels row by row. Otherwise one query per label
/// walks that label's range of `dlq_labels`' primary key `(label, dlq_id)`, already in `dlq_id`
/// order, and [`scan`] merges the pages: the cost is the page, not the number of entries with
/// the label (an `IN (SELECT dlq_id FROM dlq_labels ...)` subquery first lists every one).
fn scan_queries(
    filter: &DlqFilter,
    after: Option<&str>,
    take: usize,
    min_created_at: i64,
    records: bool,
) -> Vec<(String, Vec<SqlValue>)> {
    let columns = if records {
        "dlq.dlq_id, dlq.record"
    } else {
        "dlq.dlq_id, ''"
    };
    let labels: BTreeSet<&str> = filter.label.iter().map(String::as_str).collect();
    if labels.is_empty() || filter.workflow_run_id.is_some() {
        let (condition, mut values) = filter_sql(filter, after, min_created_at, true);
        values.push(SqlValue::Integer(take as i64));
        let sql =
            format!("SELECT {columns} FROM dlq WHERE {condition} ORDER BY dlq.dlq_id LIMIT ?");
        return vec![(sql, values)];
    }
    let (condition, values) = filter_sql(filter, None, min_created_at, false);
    let sql = format!(
        "SELECT {columns} FROM dlq_labels CROSS JOIN dlq ON dlq.dlq_id = dlq_labels.dlq_id
         WHERE dlq_labels.label = ?{} AND {condition}
         ORDER BY dlq_labels.dlq_id LIMIT ?",
        if after.is_some() {
            " AND dlq_labels.dlq_id > ?"
        } else {
            ""
        }
    );
    labels
        .into_iter()
        .map(|label| {
            let mut label_values = vec![SqlValue::Text(label.to_owned())];
            label_values.extend(after.map(|a| SqlValue::Text(a.to_owned())));
            label_values.extend(values.iter().cloned());
            label_values.push(SqlValue::Integer(take as i64));
            (sql.clone(), label_values)
        })
        .collect()
}

/// Every JSON record a one-column `sql` selects, decoded.
fn all_records<T: serde::de::DeserializeOwned>(
    connection: &Connection,
    sql: &str,
) -> Result<Vec<T>, StoreError> {
    let mut statement = connection.prepare_cached(sql)?;
    let texts = statement
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    texts.iter().map(|text| from_json(text)).collect()
}

/// Runs [`scan_queries`] and merges their pages into the first `take` `(dlq_id, record)`.
fn scan(
    connection: &Connection,
    filter: &DlqFilter,
    after: Option<&str>,
    take: usize,
    min_created_at: i64,
    records: bool,
) -> Result<Vec<(String, String)>, StoreError> {
    let mut merged = std::collections::BTreeMap::new();
    for (sql, values) in scan_queries(filter, after, take, min_created_at, records) {
        let mut statement = connection.prepare_cached(&sql)?;
        let rows = statement.query_map(params_from_iter(values), |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?;
        for row in rows {
            let (id, record): (String, String) = row?;
            merged.insert(id, record);
        }
    }
    Ok(merged.into_iter().take(take).collect())
}

/// Every label of an entry: its `labels` and its deprecated `label`, once each.
fn labels_of(entry: &FailedWorkflowRun) -> BTreeSet<&str> {
    entry
        .labels
        .iter()
        .map(String::as_str)
        .chain(entry.label.as_deref())
        .filter(|l| !l.is_empty())
        .collect()
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| internal(format!("cannot create {}: {e}", parent.display())))?;
        }
        let mut writer = Connection::open(path)?;
        // Before anything is written: a newer courier's file is left exactly as it was (switching
        // it to WAL mode would already change its header).
        schema_version(&writer)?;
        configure(&writer)?;
        migrate(&mut writer)?;
        let store = SqliteStore {
            path: path.to_path_buf(),
            reserve: path.with_extension("reserve"),
            full: Mutex::new(None),
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
            readers_available: std::sync::Condvar::new(),
            readers_opened: std::sync::atomic::AtomicUsize::new(0),
        };
        // A full disk at start is no reason to refuse reads and deletes: start degraded.
        if let Err(reason) = store.allocate_reserve() {
            *lock(&store.full) = Some(reason);
        }
        Ok(store)
    }

    /// Allocates the reserve file in full (`fallocate`, so the blocks are really taken).
    fn allocate_reserve(&self) -> Result<(), String> {
        let allocated = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&self.reserve)
            .and_then(|file| fs4::FileExt::allocate(&file, RESERVE_BYTES));
        allocated.map_err(|e| {
            // A half-allocated reserve would hold space without guaranteeing any.
            let _ = std::fs::remove_file(&self.reserve);
            format!(
                "the data directory is full: cannot keep the {} KiB reserve {}: {e}",
                RESERVE_BYTES >> 10,
                self.reserve.display()
            )
        })
    }

    /// Records that the data directory is full and releases the reserve for deletes.
    fn ran_out(&self, reason: &str) {
        let mut full = lock(&self.full);
        if full.is_none() {
            tracing::warn!(%reason, "storage is full: refusing writes that add data, releasing the reserve for deletes");
            *full = Some(reason.to_owned());
        }
        let _ = std::fs::remove_file(&self.reserve);
    }

    /// Room for the database to grow within `max_page_count`, counting its free pages (only
    /// short of it when a test limits the page count to simulate a full store).
    fn page_headroom(connection: &Connection) -> Result<i64, StoreError> {
        let pragma = |name: &str| -> Result<i64, StoreError> {
            connection
                .query_row(&format!("PRAGMA {name}"), [], |row| row.get(0))
                .map_err(StoreError::from)
        };
        Ok(pragma("max_page_count")? - pragma("page_count")? + pragma("freelist_count")?)
    }

    /// Limits the database to `pages` pages (`PRAGMA max_page_count`) on the writer connection:
    /// a full store without a full filesystem, for tests.
    pub fn limit_pages(&self, pages: u64) -> Result<u64, StoreError> {
        lock(&self.writer)
            .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |row| {
                row.get(0)
            })
            .map_err(StoreError::from)
    }

    /// Pages of the database file (`PRAGMA page_count`).
    pub fn page_count(&self) -> Result<u64, StoreError> {
        lock(&self.writer)
            .query_row("PRAGMA page_count", [], |row| row.get(0))
            .map_err(StoreError::from)
    }

    /// A write that adds data: refused at once while the store is full and space has not
    /// returned; when it finds the store full, nothing is stored and the reserve is released.
    fn write<T>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if let Some(reason) = self.write_refusal() {
            return Err(StoreError::Full(reason));
        }
        let result = self.transact(work);
        if let Err(StoreError::Full(reason)) = &result {
            self.ran_out(reason);
        }
        result
    }

    /// A write that only removes data: never refused. When it finds the store full, the reserve
    /// is released and the WAL checkpointed (so its frames are reused) and it runs once more.
    /// While the store is full, a delete that went through hands its pages back to the
    /// filesystem, which is how deleting through the API frees space.
    fn shrink<T>(
        &self,
        work: impl Fn(&Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let result = match self.transact(&work) {
            Err(StoreError::Full(reason)) => {
                self.ran_out(&reason);
                self.compact();
                self.transact(&work)
            }
            other => other,
        };
        if result.is_ok() && lock(&self.full).is_some() {
            self.compact();
        }
        result
    }

    /// Returns free pages to the filesystem (databases created with incremental auto-vacuum)
    /// and truncates the WAL. Best effort: on a full disk either step may fail, and a later
    /// delete tries again.
    fn compact(&self) {
        let connection = lock(&self.writer);
        if let Err(error) =
            connection.execute_batch("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);")
        {
            tracing::debug!(%error, "compacting the full store failed; a later delete retries");
        }
    }

    fn transact<T>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut connection = lock(&self.writer);
        let transaction =
            connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let result = work(&transaction)?;
        transaction.commit()?;
        Ok(result)
    }

    fn read<T>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let connection = self.take_reader()?;
        let result = work(&connection);
        lock(&self.readers).push(connection);
        self.readers_available.notify_one();
        result
    }

    /// Opened lazily, at most `READERS` at a time.
    fn take_reader(&self) -> Result<Connection, StoreError> {
        use std::sync::atomic::Ordering;
        let mut readers = lock(&self.readers);
        loop {
            if let Some(connection) = readers.pop() {
                return Ok(connection);
            }
            // Counted under the pool lock, so two threads cannot both open the last slot.
            if self.readers_opened.load(Ordering::Relaxed) < READERS {
                self.readers_opened.fetch_add(1, Ordering::Relaxed);
                drop(readers);
                let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX
                    | OpenFlags::SQLITE_OPEN_URI;
                let opened = Connection::open_with_flags(&self.path, flags)
                    .map_err(StoreError::from)
                    .and_then(|c| {
                        c.execute_batch("PRAGMA busy_timeout = 10000; PRAGMA cache_size = -65536;")
                            .map_err(StoreError::from)
                            .map(|()| c)
                    });
                if opened.is_err() {
                    self.readers_opened.fetch_sub(1, Ordering::Relaxed);
                }
                return opened;
            }
            readers = self
                .readers_available
                .wait(readers)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// SQLite's plan (`EXPLAIN QUERY PLAN` details, one line per step, queries separated by
    /// `;`) for the queries a list page with `filter` runs: for tests that prove pages walk
    /// indexes instead of scanning and sorting.
    pub fn list_query_plan(
        &self,
        filter: &DlqFilter,
        after: Option<&str>,
    ) -> Result<String, StoreError> {
        self.read(|c| {
            let mut plans = Vec::new();
            for (sql, values) in scan_queries(filter, after, 101, 0, true) {
                let mut statement = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                let steps = statement
                    .query_map(params_from_iter(values), |row| row.get::<_, String>(3))?
                    .collect::<Result<Vec<_>, _>>()?;
                plans.push(steps.join(" | "));
            }
            Ok(plans.join("; "))
        })
    }

    /// `PRAGMA integrity_check`: "ok" when the file is sound.
    pub fn integrity_check(&self) -> Result<String, StoreError> {
        self.read(|c| {
            c.query_row("PRAGMA integrity_check", [], |row| row.get(0))
                .map_err(StoreError::from)
        })
    }

    /// `PRAGMA foreign_key_check`: how many rows reference a missing parent (0 when sound).
    pub fn foreign_key_violations(&self) -> Result<u64, StoreError> {
        self.read(|c| {
            c.query_row("SELECT COUNT(*) FROM pragma_foreign_key_check", [], |row| {
                row.get(0)
            })
            .map_err(StoreError::from)
        })
    }
}

/// The schema version of the file; a version newer than this courier knows is refused.
fn schema_version(connection: &Connection) -> Result<usize, StoreError> {
    let version: usize = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if version > MIGRATIONS.len() {
        return Err(internal(format!(
            "the database has schema version {version}, newer than this courier ({}); use a newer courier",
            MIGRATIONS.len()
        )));
    }
    Ok(version)
}

fn migrate(connection: &mut Connection) -> Result<(), StoreError> {
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

fn next_sequence(transaction: &Transaction<'_>, count: u64) -> Result<u64, StoreError> {
    let next: u64 = transaction
        .query_row(
            "SELECT value FROM meta WHERE key = 'next_dlq_seq'",
            [],
            |row| row.get(0),
        )
        .optional()?
        .unwrap_or(0);
    transaction
        .execute("INSERT INTO meta (key, value) VALUES ('next_dlq_seq', ?1) ON CONFLICT (key) DO UPDATE SET value = ?1", params![next + count])
        ?;
    Ok(next)
}

/// Removes a run and its DLQ entries; whether it counted as there (see [`Store::cancel_run`]).
fn cancel_in(
    t: &Transaction<'_>,
    workflow_run_id: &str,
    min_created_at: i64,
) -> Result<bool, StoreError> {
    let (live, expired): (u64, u64) = t.query_row(
        "SELECT COUNT(*) FILTER (WHERE created_at >= ?2), COUNT(*) FILTER (WHERE created_at < ?2)
             FROM dlq WHERE workflow_run_id = ?1",
        params![workflow_run_id, min_created_at],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let runs = t.execute(
        "DELETE FROM runs WHERE workflow_run_id = ?1",
        params![workflow_run_id],
    )?;
    t.execute(
        "DELETE FROM dlq WHERE workflow_run_id = ?1",
        params![workflow_run_id],
    )?;
    // A run whose only entries are past retention is gone already (decision 13): what is left
    // of it is removed as the purge would, and the caller hears 404.
    Ok(live > 0 || (runs > 0 && expired == 0))
}

/// The query listing the ids of the runs a bulk cancel by filter takes, in id order: the run's
/// own attributes (`workflowUrl` as a prefix when `url_prefix`, `workflowRunId`,
/// `workflowCreatedAt`) on `runs`, the other filters on the run's live DLQ entries; a run whose
/// only entries are past retention is gone and never listed.
fn runs_matching_sql(
    filter: &DlqFilter,
    url_prefix: bool,
    after: Option<&str>,
    take: usize,
    min_created_at: i64,
) -> (String, Vec<SqlValue>) {
    let mut sql = String::from("SELECT r.workflow_run_id FROM runs r WHERE 1 = 1");
    let mut values = Vec::new();
    if !filter.workflow_url.is_empty() {
        // A prefix compares the URL's first characters (no LIKE: `%` and `_` are literal here).
        let test = if url_prefix {
            "substr(r.workflow_url, 1, length(?)) = ?"
        } else {
            "r.workflow_url = ?"
        };
        let alternatives = vec![format!("({test})"); filter.workflow_url.len()].join(" OR ");
        sql.push_str(&format!(" AND ({alternatives})"));
        for url in &filter.workflow_url {
            let copies = if url_prefix { 2 } else { 1 };
            values.extend(std::iter::repeat_n(SqlValue::Text(url.clone()), copies));
        }
    }
    if let Some(run) = &filter.workflow_run_id {
        sql.push_str(" AND r.workflow_run_id = ?");
        values.push(SqlValue::Text(run.clone()));
    }
    if let Some(created) = filter.workflow_created_at {
        sql.push_str(" AND r.workflow_created_at = ?");
        values.push(SqlValue::Integer(created));
    }
    if let Some(after) = after {
        sql.push_str(" AND r.workflow_run_id > ?");
        values.push(SqlValue::Text(after.to_owned()));
    }
    let entry_filter = DlqFilter {
        workflow_url: Vec::new(),
        workflow_run_id: None,
        workflow_created_at: None,
        ..filter.clone()
    };
    if !entry_filter.is_empty() {
        let (condition, condition_values) = filter_sql(&entry_filter, None, min_created_at, true);
        sql.push_str(&format!(
            " AND EXISTS (SELECT 1 FROM dlq WHERE dlq.workflow_run_id = r.workflow_run_id AND {condition})"
        ));
        values.extend(condition_values);
    }
    sql.push_str(
        " AND (NOT EXISTS (SELECT 1 FROM dlq WHERE dlq.workflow_run_id = r.workflow_run_id AND dlq.created_at < ?)
           OR EXISTS (SELECT 1 FROM dlq WHERE dlq.workflow_run_id = r.workflow_run_id AND dlq.created_at >= ?))",
    );
    values.push(SqlValue::Integer(min_created_at));
    values.push(SqlValue::Integer(min_created_at));
    sql.push_str(" ORDER BY r.workflow_run_id LIMIT ?");
    values.push(SqlValue::Integer(take as i64));
    (sql, values)
}

impl Store for SqliteStore {
    fn account(&self) -> Result<Option<MessagingAccount>, StoreError> {
        self.read(|c| {
            let record: Option<String> = c
                .query_row("SELECT record FROM account WHERE id = 1", [], |r| r.get(0))
                .optional()?;
            record.map(|text| from_json(&text)).transpose()
        })
    }

    fn management_key(&self) -> Result<Option<String>, StoreError> {
        self.read(|c| {
            c.query_row("SELECT management_key FROM account WHERE id = 1", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(StoreError::from)
        })
    }

    fn create_account(
        &self,
        account: &MessagingAccount,
        management_key: &str,
    ) -> Result<(), StoreError> {
        let record = to_json(account)?;
        self.write(|t| {
            t.execute(
                "INSERT INTO account (id, record, management_key) VALUES (1, ?1, ?2)",
                params![record, management_key],
            )
            .map_err(|e| StoreError::Invalid(format!("the account already exists: {e}")))?;
            Ok(())
        })
    }

    fn update_account(&self, account: &MessagingAccount) -> Result<(), StoreError> {
        let record = to_json(account)?;
        self.write(|t| {
            match t.execute(
                "UPDATE account SET record = ?1 WHERE id = 1",
                params![record],
            )? {
                1 => Ok(()),
                _ => Err(StoreError::Invalid("there is no account to update".into())),
            }
        })
    }

    fn rotate_credentials(
        &self,
        token: &str,
        password: &str,
    ) -> Result<MessagingAccount, StoreError> {
        self.write(|t| {
            let record: String = t
                .query_row("SELECT record FROM account WHERE id = 1", [], |r| r.get(0))
                .optional()?
                .ok_or_else(|| StoreError::Invalid("there is no account to rotate".into()))?;
            let mut account: MessagingAccount = from_json(&record)?;
            account.token = token.to_owned();
            account.password = password.to_owned();
            t.execute(
                "UPDATE account SET record = ?1 WHERE id = 1",
                params![to_json(&account)?],
            )?;
            Ok(account)
        })
    }

    fn insert_dlq(
        &self,
        entries: &[FailedWorkflowRun],
        max_dlq_size: u64,
    ) -> Result<Inserted, StoreError> {
        self.write(|t| {
            let generated = entries.iter().filter(|e| e.dlq_id.is_empty()).count() as u64;
            let mut sequence = next_sequence(t, generated)?;
            let mut ids = Vec::with_capacity(entries.len());
            let mut new_runs = 0;
            let mut insert = t
                .prepare_cached(
                    "INSERT INTO dlq (dlq_id, created_at, workflow_url, workflow_run_id, workflow_created_at,
                                      failure_state, caller_ip, flow_control_key, record)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )
                ?;
            let mut label = t.prepare_cached("INSERT OR IGNORE INTO dlq_labels (label, dlq_id) VALUES (?1, ?2)")?;
            let mut run = t
                .prepare_cached("INSERT OR IGNORE INTO runs (workflow_run_id, workflow_url, workflow_created_at) VALUES (?1, ?2, ?3)")
                ?;
            for entry in entries {
                let mut entry = entry.clone();
                if entry.dlq_id.is_empty() {
                    entry.dlq_id = format!("{}-{sequence}", entry.created_at);
                    sequence += 1;
                }
                let state = entry.failure_callback_info.as_ref().map(|info| info.state.to_string());
                let inserted = insert.execute(params![
                    entry.dlq_id,
                    entry.created_at,
                    entry.workflow_url,
                    entry.workflow_run_id,
                    entry.workflow_created_at,
                    state,
                    entry.caller_ip,
                    entry.flow_control_key,
                    to_json(&entry)?,
                ]);
                match inserted {
                    Ok(_) => {}
                    Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::ConstraintViolation => {
                        return Err(StoreError::Invalid(format!("dlqId `{}` is already in the DLQ", entry.dlq_id)));
                    }
                    Err(e) => return Err(e.into()),
                }
                for name in labels_of(&entry) {
                    label.execute(params![name, entry.dlq_id])?;
                }
                new_runs += run.execute(params![entry.workflow_run_id, entry.workflow_url, entry.workflow_created_at])? as u64;
                ids.push(entry.dlq_id);
            }
            let total: u64 = t.query_row("SELECT COUNT(*) FROM dlq", [], |r| r.get(0))?;
            if total > max_dlq_size {
                // Decision 13: a full DLQ evicts its oldest entries.
                t.execute(
                    "DELETE FROM dlq WHERE rowid IN (SELECT rowid FROM dlq ORDER BY created_at, dlq_id LIMIT ?1)",
                    params![total - max_dlq_size],
                )
                ?;
            }
            Ok(Inserted { dlq_ids: ids, new_runs })
        })
    }

    fn get_dlq(
        &self,
        dlq_id: &str,
        min_created_at: i64,
    ) -> Result<Option<FailedWorkflowRun>, StoreError> {
        self.read(|c| {
            let record: Option<String> = c
                .prepare_cached("SELECT record FROM dlq WHERE dlq_id = ?1 AND created_at >= ?2")
                .and_then(|mut s| {
                    s.query_row(params![dlq_id, min_created_at], |r| r.get(0))
                        .optional()
                })?;
            record.map(|text| from_json(&text)).transpose()
        })
    }

    fn list_dlq(
        &self,
        filter: &DlqFilter,
        after: Option<&str>,
        limit: usize,
        min_created_at: i64,
    ) -> Result<Page, StoreError> {
        self.read(|c| {
            let mut rows = scan(c, filter, after, limit + 1, min_created_at, true)?;
            let more = rows.len() > limit;
            rows.truncate(limit);
            let entries = rows
                .iter()
                .map(|(_, text)| from_json(text))
                .collect::<Result<Vec<FailedWorkflowRun>, _>>()?;
            let next_after = if more {
                entries.last().map(|e| e.dlq_id.clone())
            } else {
                None
            };
            Ok(Page {
                entries,
                next_after,
            })
        })
    }

    fn delete_dlq_ids(&self, ids: &[String], min_created_at: i64) -> Result<u64, StoreError> {
        let ids: Vec<&String> = ids.iter().collect::<BTreeSet<_>>().into_iter().collect();
        // One transaction, unless the disk is full: then parts small enough to fit, each whole.
        let (mut deleted, mut start, mut part) = (0, 0, ids.len());
        while start < ids.len() {
            let end = (start + part).min(ids.len());
            let result = self.shrink(|t| {
                // Entries past retention are already gone (decision 13): not deleted, not counted.
                let mut delete =
                    t.prepare_cached("DELETE FROM dlq WHERE dlq_id = ?1 AND created_at >= ?2")?;
                let mut deleted = 0;
                for id in &ids[start..end] {
                    deleted += delete.execute(params![id, min_created_at])? as u64;
                }
                Ok(deleted)
            });
            match result {
                Ok(count) => (deleted, start) = (deleted + count, end),
                Err(StoreError::Full(_)) if part > 1 => part = part.div_ceil(4),
                Err(error) => return Err(error),
            }
        }
        Ok(deleted)
    }

    fn delete_dlq_matching(
        &self,
        filter: &DlqFilter,
        after: Option<&str>,
        limit: usize,
        min_created_at: i64,
    ) -> Result<(u64, Option<String>), StoreError> {
        // On a full disk a smaller batch may fit where a whole one does not; the cursor it
        // returns covers the rest, as the interface allows ("at most `count`").
        let mut limit = limit;
        loop {
            let result = self.shrink(|t| {
                let mut ids: Vec<String> =
                    scan(t, filter, after, limit + 1, min_created_at, false)?
                        .into_iter()
                        .map(|(id, _)| id)
                        .collect();
                let more = ids.len() > limit;
                ids.truncate(limit);
                let mut delete = t.prepare_cached("DELETE FROM dlq WHERE dlq_id = ?1")?;
                for id in &ids {
                    delete.execute(params![id])?;
                }
                Ok((ids.len() as u64, if more { ids.pop() } else { None }))
            });
            match result {
                Err(StoreError::Full(_)) if limit > 1 => limit = limit.div_ceil(4),
                other => return other,
            }
        }
    }

    fn delete_dlq_one(&self, dlq_id: &str, min_created_at: i64) -> Result<bool, StoreError> {
        self.shrink(|t| {
            Ok(t.execute(
                "DELETE FROM dlq WHERE dlq_id = ?1 AND created_at >= ?2",
                params![dlq_id, min_created_at],
            )? > 0)
        })
    }

    fn dlq_count(&self, min_created_at: i64) -> Result<u64, StoreError> {
        self.read(|c| {
            c.query_row(
                "SELECT COUNT(*) FROM dlq WHERE created_at >= ?1",
                params![min_created_at],
                |r| r.get(0),
            )
            .map_err(StoreError::from)
        })
    }

    fn dlq_count_matching(
        &self,
        filter: &DlqFilter,
        min_created_at: i64,
        at_most: usize,
    ) -> Result<u64, StoreError> {
        // Ids only: the same scan as a list, without reading any record.
        self.read(|c| Ok(scan(c, filter, None, at_most, min_created_at, false)?.len() as u64))
    }

    fn purge_expired(&self, min_created_at: i64) -> Result<u64, StoreError> {
        self.shrink(|t| {
            // A run that entered the DLQ and has no entry left within retention is gone with
            // its entries (decision 13), so cancel answers the same before and after a purge.
            t.execute(EXPIRED_RUNS_DELETE, params![min_created_at])?;
            Ok(t.execute(
                "DELETE FROM dlq WHERE created_at < ?1",
                params![min_created_at],
            )? as u64)
        })
    }

    fn insert_runs(&self, runs: &[ActiveRun]) -> Result<u64, StoreError> {
        self.write(|t| {
            let mut insert = t
                .prepare_cached(
                    "INSERT INTO runs (workflow_run_id, workflow_url, workflow_created_at) VALUES (?1, ?2, ?3)
                     ON CONFLICT (workflow_run_id) DO NOTHING",
                )
                ?;
            let mut registered = 0;
            for run in runs {
                registered += insert.execute(params![run.workflow_run_id, run.workflow_url, run.workflow_created_at])? as u64;
            }
            Ok(registered)
        })
    }

    fn cancel_run(&self, workflow_run_id: &str, min_created_at: i64) -> Result<bool, StoreError> {
        self.shrink(|t| cancel_in(t, workflow_run_id, min_created_at))
    }

    fn cancel_runs(&self, ids: &[String], min_created_at: i64) -> Result<u64, StoreError> {
        self.shrink(|t| {
            let mut cancelled = 0;
            for id in ids.iter().collect::<BTreeSet<_>>() {
                cancelled += u64::from(cancel_in(t, id, min_created_at)?);
            }
            Ok(cancelled)
        })
    }

    fn cancel_runs_matching(
        &self,
        filter: &DlqFilter,
        url_prefix: bool,
        after: Option<&str>,
        limit: usize,
        min_created_at: i64,
    ) -> Result<(u64, Option<String>), StoreError> {
        self.shrink(|t| {
            let (sql, values) =
                runs_matching_sql(filter, url_prefix, after, limit + 1, min_created_at);
            let mut ids: Vec<String> = t.prepare(&sql).and_then(|mut statement| {
                statement
                    .query_map(params_from_iter(values), |r| r.get(0))?
                    .collect::<Result<Vec<String>, _>>()
            })?;
            let more = ids.len() > limit;
            ids.truncate(limit);
            let mut cancelled = 0;
            for id in &ids {
                cancelled += u64::from(cancel_in(t, id, min_created_at)?);
            }
            Ok((cancelled, if more { ids.pop() } else { None }))
        })
    }

    fn put_url_group(
        &self,
        name: &str,
        endpoints: &[UrlGroupEndpoint],
        now_ms: i64,
    ) -> Result<UrlGroup, StoreError> {
        self.write(|t| {
            let existing: Option<String> =
                t.query_row("SELECT record FROM url_groups WHERE name = ?1", params![name], |r| r.get(0)).optional()?;
            let created_at = match existing {
                Some(text) => from_json::<UrlGroup>(&text)?.created_at,
                None => now_ms,
            };
            let group = UrlGroup { created_at, updated_at: now_ms, name: name.to_owned(), endpoints: endpoints.to_vec() };
            t.execute(
                "INSERT INTO url_groups (name, record) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET record = excluded.record",
                params![name, to_json(&group)?],
            )
            ?;
            Ok(group)
        })
    }

    fn url_group(&self, name: &str) -> Result<Option<UrlGroup>, StoreError> {
        self.read(|c| {
            let record: Option<String> = c
                .query_row(
                    "SELECT record FROM url_groups WHERE name = ?1",
                    params![name],
                    |r| r.get(0),
                )
                .optional()?;
            record.map(|text| from_json(&text)).transpose()
        })
    }

    fn url_groups(&self) -> Result<Vec<UrlGroup>, StoreError> {
        self.read(|c| all_records(c, "SELECT record FROM url_groups ORDER BY name"))
    }

    fn put_index(&self, index: &SearchIndex) -> Result<(), StoreError> {
        let record = to_json(index)?;
        let id = index.id.to_string();
        self.write(|t| {
            t.execute(
                "INSERT INTO search_indexes (id, record) VALUES (?1, ?2) ON CONFLICT (id) DO UPDATE SET record = excluded.record",
                params![id, record],
            )
            ?;
            Ok(())
        })
    }

    fn index(&self, id: &str) -> Result<Option<SearchIndex>, StoreError> {
        // Ids are UUIDs, stored lower-case; a path with upper-case hex finds the same index.
        let id = id.to_ascii_lowercase();
        self.read(|c| {
            let record: Option<String> = c
                .query_row(
                    "SELECT record FROM search_indexes WHERE id = ?1",
                    params![id],
                    |r| r.get(0),
                )
                .optional()?;
            record.map(|text| from_json(&text)).transpose()
        })
    }

    fn indexes(&self) -> Result<Vec<SearchIndex>, StoreError> {
        self.read(|c| all_records(c, "SELECT record FROM search_indexes ORDER BY id"))
    }

    fn record_index_usage(
        &self,
        index_id: &str,
        events: &[IndexUsage],
    ) -> Result<bool, StoreError> {
        let index_id = index_id.to_ascii_lowercase();
        self.write(|t| {
            let known = t
                .query_row(
                    "SELECT 1 FROM search_indexes WHERE id = ?1",
                    params![index_id],
                    |_| Ok(()),
                )
                .optional()
                ?
                .is_some();
            if !known {
                return Ok(false);
            }
            let mut insert = t
                .prepare_cached(
                    "INSERT INTO index_usage (index_id, at, kind, count, latency_ms, bytes, vector_count, data_size, pending)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )
                ?;
            for event in events {
                match event {
                    IndexUsage::Activity { activity, at, count, latency_ms, bytes } => insert.execute(params![
                        index_id, at, activity.as_str(), count, latency_ms, bytes, None::<u64>, None::<u64>, None::<u64>
                    ]),
                    IndexUsage::Size { at, vector_count, data_size, pending } => insert.execute(params![
                        index_id, at, "size", 1, None::<f64>, 0, vector_count, data_size, pending
                    ]),
                }
                ?;
            }
            Ok(true)
        })
    }

    fn index_usage_between(
        &self,
        index_id: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<IndexUsage>, StoreError> {
        let index_id = index_id.to_ascii_lowercase();
        self.read(|c| {
            let row = |r: &rusqlite::Row<'_>| -> rusqlite::Result<Option<IndexUsage>> {
                let at: i64 = r.get(0)?;
                let kind: String = r.get(1)?;
                let activity = IndexActivity::ALL.into_iter().find(|a| a.as_str() == kind);
                Ok(match activity {
                    Some(activity) => Some(IndexUsage::Activity {
                        activity,
                        at,
                        count: r.get(2)?,
                        latency_ms: r.get(3)?,
                        bytes: r.get(4)?,
                    }),
                    None if kind == "size" => Some(IndexUsage::Size {
                        at,
                        vector_count: r.get(5)?,
                        data_size: r.get(6)?,
                        pending: r.get(7)?,
                    }),
                    None => None,
                })
            };
            const COLUMNS: &str =
                "at, kind, count, latency_ms, bytes, vector_count, data_size, pending";
            let mut events: Vec<IndexUsage> = c
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM index_usage WHERE index_id = ?1 AND kind = 'size' AND at < ?2
                     ORDER BY at DESC, rowid DESC LIMIT 1"
                ))
                .and_then(|mut s| s.query_row(params![index_id, from_ms], row).optional())
                ?
                .flatten()
                .into_iter()
                .collect();
            let mut statement = c
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM index_usage WHERE index_id = ?1 AND at BETWEEN ?2 AND ?3
                     ORDER BY at, rowid"
                ))
                ?;
            let rows = statement
                .query_map(params![index_id, from_ms, to_ms], row)
                ?;
            for event in rows {
                events.extend(event?);
            }
            Ok(events)
        })
    }

    fn add_usage_batch(&self, counters: &[(String, i64, f64)]) -> Result<(), StoreError> {
        self.write(|t| {
            let mut upsert = t.prepare_cached(
                "INSERT INTO usage (metric, minute, value) VALUES (?1, ?2, ?3)
                     ON CONFLICT (metric, minute) DO UPDATE SET value = value + excluded.value",
            )?;
            for (metric, minute, value) in counters {
                upsert.execute(params![metric, minute, value])?;
            }
            Ok(())
        })
    }

    fn write_refusal(&self) -> Option<String> {
        let mut full = lock(&self.full);
        let reason = full.clone()?;
        let headroom = Self::page_headroom(&lock(&self.writer)).unwrap_or(0);
        // Room for the reserve and a quarter more for writes: the released reserve's own space
        // coming back is not space returning.
        let room = self
            .reserve
            .parent()
            .map(|dir| match dir.as_os_str().is_empty() {
                true => Path::new("."),
                false => dir,
            })
            .and_then(|dir| fs4::available_space(dir).ok())
            .unwrap_or(0);
        if headroom < HEADROOM_PAGES
            || room < RESERVE_BYTES + RESERVE_BYTES / 4
            || self.allocate_reserve().is_err()
        {
            return Some(reason);
        }
        tracing::info!("storage has room again: accepting writes");
        *full = None;
        None
    }

    fn usage_between(
        &self,
        metric: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        self.read(|c| {
            let mut statement = c
                .prepare_cached("SELECT minute, value FROM usage WHERE metric = ?1 AND minute BETWEEN ?2 AND ?3 ORDER BY minute")
                ?;
            let rows = statement.query_map(params![metric, from_ms, to_ms], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<Result<_, _>>().map_err(StoreError::from)
        })
    }
}
