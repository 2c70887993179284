//! Connections: one writer, a pool of readers (WAL lets them read while a write is open), and
//! the reserve file that lets deletes run when the data directory is full.

use super::scan::scan_queries;
use super::schema::prepare;
use super::template::Seed;
use super::{Durability, SqliteStore, StoreError, internal, lock};
use crate::store::Store as _;
use courier_models::{DlqFilter, MessagingAccount};
use rusqlite::{Connection, OpenFlags, Transaction, params_from_iter};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Reader connections kept open; more concurrent readers wait for one.
pub(super) const READERS: usize = 4;

/// Bytes held in the reserve file beside the database (`courier.reserve`) while storage is
/// healthy. When a write finds the data directory full, the file is deleted, so that deletes
/// can run and an operator can free space through the API; it is allocated again once the
/// filesystem has room, which ends the degraded state.
///
/// Why 8 MiB: in WAL mode committed pages sit in the WAL until a checkpoint copies them into
/// the database file, which must grow for them. With SQLite's default auto-checkpoint of 1000
/// pages the WAL holds up to about 4 MiB, so on a full disk nothing (not even a delete, whose
/// own frames need room too) can proceed until the reserve lets that checkpoint finish.
pub(super) const RESERVE_BYTES: u64 = 8 << 20;

/// Pages the database must be able to grow by (up to `max_page_count`, counting free pages) for
/// writes that add data to be tried again after the store was full.
pub(super) const HEADROOM_PAGES: i64 = 16;

/// How long without a write from a request counts as quiet: reclaiming then runs in full.
const QUIET: Duration = SqliteStore::RECLAIM_QUIET;
/// Under load, reclaiming takes one batch of at most this many entries...
const BUSY_BATCH: usize = 100;
/// ...at most this often (up to 1,000 entries a second, about a tenth of the writer's time),
/// so requests rarely wait behind it and marks still drain under a steady stream of deletes.
const BUSY_INTERVAL: Duration = Duration::from_millis(100);

/// Reclaiming deleted entries rewrites the same pages the marking saved a request from
/// writing; done while requests write, it would take their writer lock from them.
#[derive(Debug, Default)]
pub(super) struct ReclaimPacing {
    last_request_write: Option<Instant>,
    last_busy_reclaim: Option<Instant>,
}

impl ReclaimPacing {
    /// How many entries reclaiming may take now (0: not now).
    pub(super) fn allowance(&mut self, at_most: usize) -> usize {
        let now = Instant::now();
        if self.last_request_write.is_none_or(|at| now - at >= QUIET) {
            return at_most;
        }
        if self
            .last_busy_reclaim
            .is_some_and(|at| now - at < BUSY_INTERVAL)
        {
            return 0;
        }
        self.last_busy_reclaim = Some(now);
        at_most.min(BUSY_BATCH)
    }
}

impl SqliteStore {
    /// The schema version of an up-to-date file (`PRAGMA user_version`): how many migrations
    /// there are.
    pub const SCHEMA_VERSION: usize = super::schema::SCHEMA_VERSION;

    /// How long without a write from a request before reclaiming deleted entries runs in full
    /// (see [`Store::reclaim_deleted`](crate::store::Store::reclaim_deleted)).
    pub const RECLAIM_QUIET: Duration = Duration::from_millis(250);

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// The database, its journal files and the reserve are its owner's only (`0600`, in a
    /// `0700` directory when it creates one): they hold every credential and payload.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_with(path, Durability::Full)
    }

    /// [`open`](Self::open) with the durability of its writes: [`Durability::Full`] but for a
    /// test's throwaway store.
    pub fn open_with(path: &Path, durability: Durability) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_seeded(path, durability, None).map(|(store, _)| store)
    }

    /// [`open_with`](Self::open_with), and a store it creates starts with this account; true
    /// when it did. A durable store is written with the account in it, so that its creation is
    /// flushed once (the file and its directory) rather than flushed empty and then committed
    /// to (three more flushes: the WAL's header, its directory, the commit), which was a
    /// quarter of `courier serve`'s start. A test's store, never flushed, commits it instead,
    /// which costs less than opening the image in memory to write it there.
    pub fn open_with_account(
        path: &Path,
        durability: Durability,
        account: &MessagingAccount,
        management_key: &str,
    ) -> Result<(SqliteStore, bool), StoreError> {
        let seed = |connection: &Connection| {
            super::operations::insert_account(connection, account, management_key)
        };
        let durable = durability == Durability::Full;
        let (store, created) =
            SqliteStore::open_seeded(path, durability, durable.then_some(&seed as Seed<'_>))?;
        if created && !durable {
            store.create_account(account, management_key)?;
        }
        Ok((store, created))
    }

    fn open_seeded(
        path: &Path,
        durability: Durability,
        seed: Option<Seed<'_>>,
    ) -> Result<(SqliteStore, bool), StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            crate::datadir::create_private_dir(parent)
                .map_err(|e| internal(format!("cannot create {}: {e}", parent.display())))?;
        }
        // Before any file is touched: a link among them would have courier write (or re-mode)
        // the file it points at, and another user's file is theirs to read or swap.
        for file in crate::datadir::store_files(path) {
            crate::datadir::check_own_file(&file).map_err(internal)?;
        }
        // A file written from the image is already private, and has no journal files yet.
        let created =
            super::template::create_if_missing(path, durability == Durability::Full, seed)?;
        if !created {
            make_files_private(path)?;
        }
        // SQLite opens its `-wal` and `-shm` with `O_NOFOLLOW` itself; NOFOLLOW refuses a link
        // as the database, which it would otherwise resolve and open.
        let mut writer = Connection::open_with_flags(path, OpenFlags::default() | NO_FOLLOW)?;
        prepare(&mut writer, durability)?;
        let store = SqliteStore {
            path: path.to_path_buf(),
            reserve: path.with_extension("reserve"),
            full: Mutex::new(None),
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
            readers_available: std::sync::Condvar::new(),
            readers_waiting: std::sync::atomic::AtomicUsize::new(0),
            readers_opened: std::sync::atomic::AtomicUsize::new(0),
            list_generation: std::sync::atomic::AtomicU64::new(0),
            pacing: Mutex::new(ReclaimPacing::default()),
        };
        // A full disk at start is no reason to refuse reads and deletes: start degraded. A
        // test's throwaway store keeps no reserve (see `Durability::TestOnly`).
        if durability == Durability::Full
            && let Err(reason) = store.allocate_reserve()
        {
            *lock(&store.full) = Some(reason);
        }
        Ok((store, created))
    }

    /// Allocates the reserve file in full (`fallocate`, so the blocks are really taken).
    pub(super) fn allocate_reserve(&self) -> Result<(), String> {
        let allocated = crate::datadir::open_own_file(
            &self.reserve,
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false),
        )
        .and_then(|file| {
            crate::datadir::tighten(&file, &self.reserve)?;
            fs4::FileExt::allocate(&file, RESERVE_BYTES).map_err(|e| e.to_string())
        });
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
    pub(super) fn ran_out(&self, reason: &str) {
        let mut full = lock(&self.full);
        if full.is_none() {
            tracing::warn!(%reason, "storage is full: refusing writes that add data, releasing the reserve for deletes");
            *full = Some(reason.to_owned());
        }
        let _ = std::fs::remove_file(&self.reserve);
    }

    /// Room for the database to grow within `max_page_count`, counting its free pages (only
    /// short of it when a test limits the page count to simulate a full store).
    pub(super) fn page_headroom(connection: &Connection) -> Result<i64, StoreError> {
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
    pub(super) fn write<T>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.request_writes();
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
    pub(super) fn shrink<T>(
        &self,
        work: impl Fn(&Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.request_writes();
        self.remove(work)
    }

    /// Notes that a request writes now, which holds background reclaiming back.
    fn request_writes(&self) {
        lock(&self.pacing).last_request_write = Some(Instant::now());
    }

    /// [`shrink`](Self::shrink) for the upkeep's own removals, which do not count as load.
    pub(super) fn remove<T>(
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
            // Deletes only mark entries; on a full store their pages are wanted back now.
            while let Ok(reclaimed) = self.transact(|t| super::steps::reclaim_marked(t, 1000))
                && reclaimed > 0
            {}
            self.compact();
        }
        result
    }

    /// Returns free pages to the filesystem (databases created with incremental auto-vacuum)
    /// and truncates the WAL. Best effort: on a full disk either step may fail, and a later
    /// delete tries again.
    pub(super) fn compact(&self) {
        let connection = lock(&self.writer);
        if let Err(error) =
            connection.execute_batch("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);")
        {
            tracing::debug!(%error, "compacting the full store failed; a later delete retries");
        }
    }

    pub(super) fn transact<T>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut connection = lock(&self.writer);
        let transaction =
            connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let result = work(&transaction)?;
        let committed = transaction.commit();
        // After the commit, whatever its outcome (a failed one changes nothing, and moving on
        // costs only a kept page): a reader that sees the new number sees the write.
        self.list_generation
            .fetch_add(1, std::sync::atomic::Ordering::Release);
        committed?;
        Ok(result)
    }

    pub(super) fn read<T>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        use std::sync::atomic::Ordering;
        let connection = self.take_reader()?;
        let result = work(&connection);
        let mut idle = lock(&self.readers);
        idle.push(connection);
        let anyone_waiting = self.readers_waiting.load(Ordering::Relaxed) > 0;
        drop(idle);
        if anyone_waiting {
            self.readers_available.notify_one();
        }
        result
    }

    /// Opened lazily, at most `READERS` at a time.
    pub(super) fn take_reader(&self) -> Result<Connection, StoreError> {
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
                    | OpenFlags::SQLITE_OPEN_URI
                    | NO_FOLLOW;
                let opened = Connection::open_with_flags(&self.path, flags)
                    .map_err(StoreError::from)
                    .and_then(|c| super::schema::configure_reader(&c).map(|()| c));
                if opened.is_err() {
                    self.readers_opened.fetch_sub(1, Ordering::Relaxed);
                }
                return opened;
            }
            self.readers_waiting.fetch_add(1, Ordering::Relaxed);
            readers = self
                .readers_available
                .wait(readers)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            self.readers_waiting.fetch_sub(1, Ordering::Relaxed);
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
            for (sql, values) in
                scan_queries(filter, after, 101, Some(0), super::scan::Read::Listed)
            {
                let mut statement = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                let steps = statement
                    .query_map(params_from_iter(values), |row| row.get::<_, String>(3))?
                    .collect::<Result<Vec<_>, _>>()?;
                plans.push(steps.join(" | "));
            }
            Ok(plans.join("; "))
        })
    }

    /// The writer's `PRAGMA synchronous` (2 = FULL, 0 = OFF): for tests that prove which
    /// stores flush every commit.
    pub fn synchronous(&self) -> Result<i64, StoreError> {
        lock(&self.writer)
            .query_row("PRAGMA synchronous", [], |row| row.get(0))
            .map_err(StoreError::from)
    }

    /// `PRAGMA integrity_check`: "ok" when the file is sound.
    pub fn integrity_check(&self) -> Result<String, StoreError> {
        self.read(|c| {
            c.query_row("PRAGMA integrity_check", [], |row| row.get(0))
                .map_err(StoreError::from)
        })
    }

    /// How many label rows disagree with their entry's row about its row number or a filter
    /// column they copy (0 when sound; see migration 5).
    pub fn label_copies_out_of_step(&self) -> Result<u64, StoreError> {
        self.read(|c| {
            c.query_row(
                "SELECT COUNT(*) FROM dlq_labels l LEFT JOIN dlq_rows r ON r.dlq_id = l.dlq_id
                 WHERE r.rowid IS NOT l.seq OR r.created_at IS NOT l.created_at
                    OR r.workflow_url IS NOT l.workflow_url OR r.workflow_run_id IS NOT l.workflow_run_id
                    OR r.workflow_created_at IS NOT l.workflow_created_at
                    OR r.failure_state IS NOT l.failure_state OR r.caller_ip IS NOT l.caller_ip
                    OR r.flow_control_key IS NOT l.flow_control_key",
                [],
                |row| row.get(0),
            )
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

/// Every connection refuses a database that is a symbolic link.
const NO_FOLLOW: OpenFlags = OpenFlags::SQLITE_OPEN_NOFOLLOW;

/// Creates the database file `0600` when it is missing (SQLite gives the `-wal` and `-shm` files
/// it creates the database's mode) and tightens the files of an older, more open store, each
/// through its open file ([`crate::datadir::make_private`]), never by name.
fn make_files_private(path: &Path) -> Result<(), StoreError> {
    // `create_new` (`O_EXCL`) fails on a link as on any existing name: it follows none.
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(crate::datadir::PRIVATE_FILE_MODE)
        .open(path);
    match created {
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => {
            return Err(internal(format!(
                "cannot create {}: {error}",
                path.display()
            )));
        }
    }
    for file in crate::datadir::store_files(path) {
        crate::datadir::make_private(&file).map_err(internal)?;
    }
    Ok(())
}
