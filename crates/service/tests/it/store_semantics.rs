//! The store's semantics, call by call, on both stores: real SQLite files and a real PostgreSQL
//! database (a throwaway schema each; skipped with one printed line where none is configured,
//! see `courier_service::test_database`). Ids, filters, keyset pagination under concurrent
//! change, deletes, cancel, retention, eviction, durability across reopen and usage counters.
//! Each expectation is computed independently of the SQL (a Rust predicate over what was
//! inserted), so a wrong query fails here rather than in an HTTP test. A test written once runs
//! on each store through [`on_both_stores!`].

use courier_models::{
    FailedWorkflowRun, FailureCallbackInfo, FailureFunctionState, Headers, IndexRegion, IndexType,
    SearchIndex, UrlGroupEndpoint,
};
use courier_service::account::default_account;
use courier_service::store::{
    ActiveRun, DlqFilter, PageQuery, PostgresStore, SqliteStore, Store, StoreError,
};
use courier_service::test_database::TestDatabase;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Far above anything a test inserts, so nothing is evicted unless a test asks for it.
const NO_LIMIT: u64 = 1_000_000;

/// Which store a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Sqlite,
    Postgres,
}

struct Fixture {
    backend: Backend,
    // Kept so the directory outlives the store.
    _dir: tempfile::TempDir,
    /// The SQLite file (unused on PostgreSQL).
    path: PathBuf,
    /// The throwaway schema on PostgreSQL.
    database: Option<TestDatabase>,
    store: Box<dyn Store>,
}

impl Fixture {
    /// Inserts `entries` with no size limit; the ids they were stored under.
    fn insert(&self, entries: &[FailedWorkflowRun]) -> Vec<String> {
        self.store
            .insert_dlq(entries, NO_LIMIT)
            .expect("insert")
            .dlq_ids
    }

    /// The store closed and opened again, as by a restarted process.
    fn reopened(self) -> Fixture {
        let Fixture {
            backend,
            _dir,
            path,
            database,
            store,
        } = self;
        drop(store);
        let store = open_store(&path, database.as_ref());
        Fixture {
            backend,
            _dir,
            path,
            database,
            store,
        }
    }

    /// On SQLite, the file passes `PRAGMA integrity_check` (PostgreSQL keeps its own).
    fn assert_intact(&self) {
        if self.backend == Backend::Sqlite {
            let check: String = rusqlite::Connection::open(&self.path)
                .expect("raw")
                .query_row("PRAGMA integrity_check", [], |row| row.get(0))
                .expect("integrity_check");
            assert_eq!(check, "ok");
        }
    }
}

/// The store at `path` (SQLite), or in `database` (PostgreSQL).
fn open_store(path: &std::path::Path, database: Option<&TestDatabase>) -> Box<dyn Store> {
    match database {
        None => Box::new(SqliteStore::open(path).expect("open")),
        Some(database) => Box::new(PostgresStore::connect(database.url()).expect("connect")),
    }
}

/// A fresh, empty store on `backend`; `None` when PostgreSQL is not configured here.
fn fixture(backend: Backend) -> Option<Fixture> {
    let dir = tempfile::tempdir().expect("tempdir");
    // A directory that does not exist yet: open must create it.
    let path = dir.path().join("nested").join("courier.sqlite3");
    let database = match backend {
        Backend::Sqlite => None,
        Backend::Postgres => Some(TestDatabase::create()?),
    };
    let store = open_store(&path, database.as_ref());
    Some(Fixture {
        backend,
        _dir: dir,
        path,
        database,
        store,
    })
}

/// Runs each named test, a `fn(Backend)`, once per store: `sqlite::name` and `postgres::name`.
macro_rules! on_both_stores {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(#[test]
            fn $name() {
                super::$name(crate::store_semantics::Backend::Sqlite)
            })*
        }
        mod postgres {
            $(#[test]
            fn $name() {
                super::$name(crate::store_semantics::Backend::Postgres)
            })*
        }
    };
}

fn headers(pairs: &[(&str, &[&str])]) -> Headers {
    Headers(
        pairs
            .iter()
            .map(|(k, vs)| {
                (
                    (*k).to_owned(),
                    vs.iter().map(|v| (*v).to_owned()).collect(),
                )
            })
            .collect(),
    )
}

/// Entries as [`run_of`] takes them: `(dlq_id, created_at)` each.
type Stamps<'a> = [(&'a str, i64)];

/// Entries of the run `run`, each `(dlq_id, created_at)` with only the required fields set.
fn run_of(run: &str, entries: &Stamps<'_>) -> Vec<FailedWorkflowRun> {
    entries
        .iter()
        .map(|(dlq_id, created_at)| entry(dlq_id, *created_at, run))
        .collect()
}

/// An entry with only the required fields set.
fn entry(dlq_id: &str, created_at: i64, run: &str) -> FailedWorkflowRun {
    FailedWorkflowRun {
        body: None,
        body_base64: None,
        caller_ip: None,
        created_at,
        dlq_id: dlq_id.to_owned(),
        failure_callback: None,
        failure_callback_header: None,
        failure_callback_info: None,
        flow_control_key: None,
        header: headers(&[]),
        label: None,
        labels: Vec::new(),
        max_retries: 3,
        message_id: format!("msg_{dlq_id}_{created_at}"),
        method: "POST".into(),
        not_before: None,
        response_body: None,
        response_body_base64: None,
        response_header: None,
        response_status: None,
        url: "https://example.com/step".into(),
        workflow_created_at: created_at - 1000,
        workflow_run_id: run.to_owned(),
        workflow_url: "https://example.com/wf".into(),
    }
}

fn ids(entries: &[FailedWorkflowRun]) -> Vec<String> {
    entries.iter().map(|e| e.dlq_id.clone()).collect()
}

/// Every page of a scan, checking each page's shape on the way.
fn list_all(store: &dyn Store, filter: &DlqFilter, page: usize, min: i64) -> Vec<String> {
    let mut all = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let got = store
            .list_dlq(
                PageQuery::first(filter, page)
                    .after(after.as_deref())
                    .retained_from(min),
            )
            .expect("list");
        assert!(got.entries.len() <= page, "a page holds at most `limit`");
        if let Some(next) = &got.next_after {
            assert_eq!(got.entries.len(), page, "a page before the last is full");
            assert_eq!(Some(next), got.entries.last().map(|e| &e.dlq_id));
        }
        all.extend(ids(&got.entries));
        match got.next_after {
            Some(next) => after = Some(next),
            None => return all,
        }
    }
}

/// Deletes every match in batches of `batch`, following the cursor: each batch's count and the
/// cursor it answered, in order.
fn delete_in_batches(
    store: &dyn Store,
    filter: &DlqFilter,
    batch: usize,
) -> Vec<(u64, Option<String>)> {
    let mut batches = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let (count, next) = store
            .delete_dlq_matching(PageQuery::first(filter, batch).after(after.as_deref()))
            .expect("delete");
        batches.push((count, next.clone()));
        match next {
            Some(next) => after = Some(next),
            None => return batches,
        }
    }
}

fn assert_strictly_ascending(ids: &[String]) {
    for pair in ids.windows(2) {
        assert!(pair[0] < pair[1], "not strictly ascending: {pair:?}");
    }
}

mod entries;
mod filters;
mod kept;
mod lifecycle;
mod pagination;
mod resources;
mod shared;
mod tombstones;
mod wire;
