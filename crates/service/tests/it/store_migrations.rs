//! Schema migrations on real files: a database written by the hand-written migrations that came
//! before `rusqlite_migration` opens, keeps its data and takes new writes, and a database that
//! stopped at an older schema version is brought up to date.

use courier_service::store::{DlqFilter, IndexUsage, PageQuery, SqliteStore, Store};
use std::path::{Path, PathBuf};

/// Written by courier at commit 261eb99; what it holds is in `fixtures/README.md`.
const FIXTURE: &str = "tests/fixtures/schema-v2-261eb99.sqlite3";
const INDEX_ID: &str = "6f1d3c1e-8f6a-4c1b-9a7e-2b5d0c9e4a10";
const FIRST: &str = "1752829295505-0";
const SECOND: &str = "1752829296505-1";

/// A copy of the fixture in a new directory (the store writes beside its file).
fn fixture_copy(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).expect("dir");
    let path = dir.join("courier.sqlite3");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE), &path).expect("copy");
    path
}

fn pragma(path: &Path, name: &str) -> i64 {
    rusqlite::Connection::open(path)
        .expect("raw")
        .query_row(&format!("PRAGMA {name}"), [], |row| row.get(0))
        .expect(name)
}

fn listed_ids(store: &SqliteStore, filter: &DlqFilter) -> Vec<String> {
    store
        .list_dlq(PageQuery::first(filter, 100))
        .expect("list")
        .entries
        .into_iter()
        .map(|entry| entry.dlq_id)
        .collect()
}

#[test]
fn a_database_of_the_hand_written_migrations_opens_with_its_data() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = fixture_copy(dir.path());
    assert_eq!(
        pragma(&path, "user_version"),
        2,
        "the fixture's bookkeeping"
    );

    let store = SqliteStore::open(&path).expect("open");
    assert_eq!(
        store.account().expect("account").map(|a| a.token),
        Some("tok".to_owned())
    );
    assert_eq!(
        store.management_key().expect("key").as_deref(),
        Some("mkey")
    );
    assert_eq!(listed_ids(&store, &DlqFilter::default()), [FIRST, SECOND]);
    let etl = DlqFilter {
        label: vec!["etl".into()],
        ..DlqFilter::default()
    };
    assert_eq!(listed_ids(&store, &etl), [SECOND], "the label index");
    // Migration 5 copied each entry's row number and filter columns into its label rows.
    assert_eq!(store.label_copies_out_of_step().expect("label copies"), 0);
    let binary = store.get_dlq(SECOND, 0).expect("get").expect("stored");
    assert_eq!(binary.body_base64.as_deref(), Some("//4="));
    assert!(store.url_group("orders").expect("group").is_some());
    assert!(store.index(INDEX_ID).expect("index").is_some());
    let usage = store
        .index_usage_between(INDEX_ID, 0, i64::MAX)
        .expect("usage");
    assert!(
        usage.iter().any(|event| matches!(
            event,
            IndexUsage::Size {
                vector_count: 42,
                ..
            }
        )),
        "{usage:?}"
    );

    // It takes writes, and no migration ran again.
    let mut third = binary.clone();
    third.dlq_id = String::new();
    third.workflow_run_id = "wfr_after_upgrade".into();
    let added = store.insert_dlq(&[third], 1_000).expect("insert").dlq_ids;
    assert_eq!(store.integrity_check().expect("check"), "ok");
    drop(store);
    assert_eq!(
        pragma(&path, "user_version"),
        SqliteStore::SCHEMA_VERSION as i64
    );
    let reopened = SqliteStore::open(&path).expect("reopen");
    assert_eq!(
        listed_ids(&reopened, &DlqFilter::default()),
        [FIRST.to_owned(), SECOND.to_owned(), added[0].clone()]
    );
    // Rows from before the stored list shape (migration 4) list the same as new ones: their
    // list shape is made from the record, as serde writes it.
    let page = reopened
        .list_dlq_json(PageQuery::first(&DlqFilter::default(), 10))
        .expect("list json");
    let typed = reopened
        .list_dlq(PageQuery::first(&DlqFilter::default(), 10))
        .expect("list");
    let expected: Vec<String> = typed
        .entries
        .into_iter()
        .map(|entry| {
            serde_json::to_string(&courier_models::WorkflowDlqMessage::from(entry)).unwrap()
        })
        .collect();
    assert_eq!(page.messages, expected);
}

#[test]
fn a_database_at_schema_version_1_gains_the_index_usage_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = fixture_copy(dir.path());
    // Version 1 is the fixture without migration 2's table: what a courier from before index
    // usage left behind.
    rusqlite::Connection::open(&path)
        .expect("raw")
        .execute_batch("DROP TABLE index_usage; PRAGMA user_version = 1;")
        .expect("back to version 1");

    let store = SqliteStore::open(&path).expect("open migrates");
    assert_eq!(listed_ids(&store, &DlqFilter::default()), [FIRST, SECOND]);
    let sample = IndexUsage::Size {
        at: 1_752_829_300_000,
        vector_count: 7,
        data_size: 70,
        pending: 0,
    };
    assert!(
        store
            .record_index_usage(INDEX_ID, std::slice::from_ref(&sample))
            .expect("record")
    );
    assert_eq!(
        store
            .index_usage_between(INDEX_ID, 0, i64::MAX)
            .expect("usage"),
        [sample]
    );
    drop(store);
    assert_eq!(
        pragma(&path, "user_version"),
        SqliteStore::SCHEMA_VERSION as i64
    );
}

#[test]
fn a_new_database_gives_freed_pages_back_incrementally() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("courier.sqlite3");
    drop(SqliteStore::open(&path).expect("create"));
    // 2 is INCREMENTAL; the courier that wrote the fixture asked for it too late (after WAL
    // mode), so its files have none, and keep none: SQLite changes it only with a VACUUM.
    assert_eq!(pragma(&path, "auto_vacuum"), 2);
    let old = fixture_copy(dir.path().join("old").as_path());
    drop(SqliteStore::open(&old).expect("open"));
    assert_eq!(pragma(&old, "auto_vacuum"), 0);
}
