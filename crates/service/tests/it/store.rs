//! The SQLite store on its own: schema versions, reopening, and query plans that use the indexes
//! (so listing stays fast at a million entries, whatever the filter).

use courier_models::FailureFunctionState;
use courier_service::account::default_account;
use courier_service::demo::failed_runs;
use courier_service::store::{DlqFilter, Durability, PageQuery, SqliteStore, Store};

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as i64
}

/// The served store flushes every commit and keeps its reserve; only a test's throwaway store
/// may skip both, and what it writes is still there when it is opened again.
#[test]
fn only_a_test_store_commits_without_flushing_to_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let served = SqliteStore::open(&dir.path().join("served.sqlite3")).expect("open");
    assert_eq!(served.synchronous().expect("pragma"), 2, "FULL");
    assert!(
        dir.path().join("served.reserve").exists(),
        "room kept for deletes"
    );
    let path = dir.path().join("test.sqlite3");
    {
        let test = SqliteStore::open_with(&path, Durability::TestOnly).expect("open");
        assert_eq!(test.synchronous().expect("pragma"), 0, "OFF");
        assert!(
            !dir.path().join("test.reserve").exists(),
            "a test store keeps no reserve"
        );
        let inserted = test
            .insert_dlq(&failed_runs(now_ms()), 1_000_000)
            .expect("insert")
            .dlq_ids;
        assert!(!inserted.is_empty());
    }
    let reopened = SqliteStore::open_with(&path, Durability::TestOnly).expect("reopen");
    let page = reopened
        .list_dlq(PageQuery::first(&DlqFilter::default(), 1000))
        .expect("list");
    assert!(
        !page.entries.is_empty(),
        "a test store keeps its commits across a reopen"
    );
}

/// A new store starts with its account, in either durability, and an existing store keeps its
/// own: the account given to a later open is not written. A durable new store has the account
/// in its file before any commit (its WAL holds nothing), so that creating it is one flush.
#[test]
fn a_new_store_starts_with_its_account_and_an_existing_one_keeps_its_own() {
    let dir = tempfile::tempdir().expect("tempdir");
    for durability in [Durability::Full, Durability::TestOnly] {
        let path = dir.path().join(format!("{durability:?}.sqlite3"));
        let first = default_account("first@example.com", "first-token".into(), now_ms());
        let (store, created) =
            SqliteStore::open_with_account(&path, durability, &first, "first-key").expect("open");
        assert!(created, "{durability:?}");
        assert_eq!(store.account().expect("account"), Some(first.clone()));
        assert_eq!(
            store.management_key().expect("key").as_deref(),
            Some("first-key")
        );
        if durability == Durability::Full {
            let wal = std::fs::metadata(dir.path().join(format!("{durability:?}.sqlite3-wal")))
                .map_or(0, |m| m.len());
            assert_eq!(
                wal, 0,
                "the account is in the file itself, nothing committed"
            );
            // Seeded in memory with a rollback journal, written out in WAL mode: its header's
            // read and write versions (https://www.sqlite.org/fileformat2.html).
            let header = std::fs::read(&path).expect("read the new store");
            assert_eq!(header.get(18..20), Some(&[2, 2][..]), "in WAL mode");
        }
        drop(store);
        let second = default_account("second@example.com", "second-token".into(), now_ms());
        let (store, created) =
            SqliteStore::open_with_account(&path, durability, &second, "second-key")
                .expect("reopen");
        assert!(!created, "{durability:?}");
        assert_eq!(store.account().expect("account"), Some(first));
        assert_eq!(
            store.management_key().expect("key").as_deref(),
            Some("first-key")
        );
        assert_eq!(store.integrity_check().expect("check"), "ok");
    }
}

#[test]
fn reopening_keeps_everything_and_a_newer_schema_is_refused_clearly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("courier.sqlite3");
    let ids = {
        let store = SqliteStore::open(&path).expect("open");
        store
            .create_account(
                &default_account("team@example.com", "token".into(), now_ms()),
                "key",
            )
            .expect("account");
        store
            .insert_dlq(&failed_runs(now_ms()), 1_000_000)
            .expect("insert")
            .dlq_ids
    };
    let store = SqliteStore::open(&path).expect("reopen runs no migration twice");
    assert_eq!(
        store.account().expect("account").map(|a| a.token),
        Some("token".into())
    );
    assert_eq!(store.management_key().expect("key").as_deref(), Some("key"));
    let page = store
        .list_dlq(PageQuery::first(&DlqFilter::default(), 1000))
        .expect("list");
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(
        page.entries
            .iter()
            .map(|e| e.dlq_id.clone())
            .collect::<Vec<_>>(),
        sorted
    );
    assert_eq!(store.integrity_check().expect("check"), "ok");
    drop(store);

    let connection = rusqlite::Connection::open(&path).expect("raw");
    connection
        .pragma_update(None, "user_version", 99)
        .expect("bump");
    drop(connection);
    let error = SqliteStore::open(&path)
        .err()
        .expect("a newer schema is refused")
        .to_string();
    assert!(error.contains("schema version 99"), "{error}");
}

#[test]
fn list_queries_use_indexes_instead_of_scanning_and_sorting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SqliteStore::open(&dir.path().join("courier.sqlite3")).expect("open");
    store
        .insert_dlq(&failed_runs(now_ms()), 1_000_000)
        .expect("insert");
    // The plans of the queries the store itself runs for a page, first and later ones.
    let plan = |filter: DlqFilter, after: Option<&str>| {
        store.list_query_plan(&filter, after).expect("plan")
    };
    for after in [None, Some("1752829295505-0")] {
        let unfiltered = plan(DlqFilter::default(), after);
        assert!(
            !unfiltered.contains("TEMP B-TREE") && unfiltered.contains("INDEX"),
            "an unfiltered page must walk the dlq_id index: {unfiltered}"
        );
        let by_run = plan(
            DlqFilter {
                workflow_run_id: Some("wfr_demo01000".into()),
                label: vec!["billing".into()],
                ..DlqFilter::default()
            },
            after,
        );
        assert!(by_run.contains("dlq_by_run"), "{by_run}");
        // Each label walks its own (label, dlq_id) range in order, then looks the entry up.
        let by_labels = plan(
            DlqFilter {
                label: vec!["billing".into(), "beta".into()],
                caller_ip: vec!["203.0.113.7".into()],
                ..DlqFilter::default()
            },
            after,
        );
        let queries: Vec<&str> = by_labels.split("; ").collect();
        assert_eq!(queries.len(), 2, "one query per label: {by_labels}");
        for query in queries {
            assert!(
                query.starts_with("SEARCH dlq_labels USING")
                    && query.contains("(label=?")
                    && !query.contains("TEMP B-TREE")
                    && !query.contains("SCAN"),
                "{query}"
            );
        }
    }
}

#[test]
fn filters_combine_or_within_and_across() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SqliteStore::open(&dir.path().join("courier.sqlite3")).expect("open");
    let runs = failed_runs(now_ms());
    store.insert_dlq(&runs, 1_000_000).expect("insert");
    let filter = DlqFilter {
        label: vec!["billing".into(), "etl".into()],
        failure_function_state: vec![
            FailureFunctionState::CallbackFail,
            FailureFunctionState::CallbackSuccess,
        ],
        caller_ip: vec!["192.0.2.44".into()],
        ..DlqFilter::default()
    };
    let expected = runs
        .iter()
        .filter(|r| {
            r.labels
                .iter()
                .chain(&r.label)
                .any(|l| l == "billing" || l == "etl")
        })
        .filter(|r| {
            r.failure_callback_info.as_ref().is_some_and(|i| {
                matches!(
                    i.state,
                    FailureFunctionState::CallbackFail | FailureFunctionState::CallbackSuccess
                )
            })
        })
        .filter(|r| r.caller_ip.as_deref() == Some("192.0.2.44"))
        .count();
    let page = store
        .list_dlq(PageQuery::first(&filter, 1000))
        .expect("list");
    assert!(expected > 0);
    assert_eq!(page.entries.len(), expected);
    assert_eq!(
        store
            .delete_dlq_matching(PageQuery::first(&filter, 1000))
            .expect("delete")
            .0 as usize,
        expected
    );
    assert_eq!(
        store.dlq_count(0).expect("count") as usize,
        runs.len() - expected
    );
}
