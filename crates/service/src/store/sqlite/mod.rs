//! The SQLite store: WAL, synchronous writes, one writer connection and a pool of readers.
//!
//! Entries are kept as JSON (the 2.2 shape) beside indexed columns for every filter, so a
//! listing never parses more rows than it returns. Readers run on their own connections, which
//! WAL lets proceed while a write transaction is open.
//!
//! The store is in rooms: `schema` (migrations by `rusqlite_migration`, connection settings), `pool` (the writer,
//! the readers and the reserve that keeps deletes working on a full disk), `scan` (filters as
//! SQL and paged scans), `operations` (the `Store` methods), `usage` (the
//! statistics' counters) and `template` (new files from an image of the migrated schema).

mod operations;
mod pool;
mod scan;
mod schema;
mod steps;
mod template;
mod usage;

use super::StoreError;
use rusqlite::Connection;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// Whether a committed write must survive the machine losing power.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// Every commit is on disk before it is answered (`PRAGMA synchronous = FULL`): what
    /// `courier serve` always uses.
    #[default]
    Full,
    /// Commits reach the operating system but are not flushed to disk (`synchronous = OFF`):
    /// a crash of the process loses nothing, a crash of the machine may. Nor does it keep the
    /// 8 MiB reserve file that lets deletes run on a full disk: writes are still refused with
    /// [`StoreError::Full`], but deletes may fail too until space returns. For the
    /// throwaway store of a test (`TestService`), where the flushes were most of the time to
    /// start one, and allocating and freeing the reserve much of the rest.
    TestOnly,
}

impl SqliteStore {
    /// Calls it serves at a time: one writer and four readers (`pool::READERS`). More concurrent
    /// calls wait for a connection.
    pub const CONNECTIONS: usize = 1 + pool::READERS;
}

pub struct SqliteStore {
    path: PathBuf,
    /// The reserve file ([`RESERVE_BYTES`]).
    reserve: PathBuf,
    /// Why writes that add data are refused: set when a write found the data directory full.
    full: Mutex<Option<String>>,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
    readers_available: std::sync::Condvar,
    /// Callers waiting for a reader, changed only under the `readers` lock: a reader handed back
    /// wakes one only when there is one, since every `notify_one` is a system call.
    readers_waiting: std::sync::atomic::AtomicUsize,
    /// Reader connections opened so far (at most `READERS`).
    readers_opened: std::sync::atomic::AtomicUsize,
    /// Committed write transactions so far, moved after each commit: what a kept list page is
    /// checked against ([`KeepWhile`](crate::store::KeepWhile)). Every write goes through
    /// [`transact`](Self::transact), and this process is the store's only writer (the data
    /// directory's lock), so no change to an entry can pass unseen.
    list_generation: std::sync::atomic::AtomicU64,
    /// When requests last wrote and when reclaiming last ran under load (see
    /// [`Store::reclaim_deleted`](crate::store::Store::reclaim_deleted)).
    pacing: Mutex<pool::ReclaimPacing>,
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

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(internal)
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text)
        .map_err(|e| StoreError::Internal(format!("a stored record does not parse: {e}")))
}

/// The first column of the row `sql` selects, or `None` when it selects none.
fn optional_value<T: rusqlite::types::FromSql>(
    connection: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Option<T>, StoreError> {
    use rusqlite::OptionalExtension;
    Ok(connection.query_row(sql, params, |r| r.get(0)).optional()?)
}

/// The JSON record `sql` selects (see [`optional_value`]), decoded.
fn optional_record<T: serde::de::DeserializeOwned>(
    connection: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Option<T>, StoreError> {
    optional_value::<String>(connection, sql, params)?
        .map(|text| from_json(&text))
        .transpose()
}
