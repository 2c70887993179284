//! Faults of the store alone, no privileges needed: SQLite's page limit as a full store, and
//! the wall clock stepping backwards.

/// A stored entry in the 2.2 shape.
fn entry(n: usize, created_at: i64) -> courier_models::FailedWorkflowRun {
    serde_json::from_value(serde_json::json!({
        "dlqId": "",
        "messageId": format!("msg_{n}"),
        "workflowUrl": "https://example.com/fill",
        "workflowRunId": format!("wfr_{n}"),
        "workflowCreatedAt": created_at,
        "url": "https://example.com/fill",
        "method": "POST",
        "header": {},
        "maxRetries": 3,
        "createdAt": created_at,
        "labels": ["fill"],
        "body": "y".repeat(2048),
    }))
    .expect("an entry")
}

/// The store alone, filled to SQLite's page limit (no root, no mount needed): a full store
/// stores nothing of a refused write, keeps reads and deletes, and recovers once deletes made
/// room.
#[test]
fn a_store_at_its_page_limit_refuses_writes_keeps_reads_and_deletes_and_recovers() {
    use courier_service::store::{DlqFilter, PageQuery, SqliteStore, Store, StoreError};
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SqliteStore::open(&dir.path().join("courier.sqlite3")).expect("open");
    let now = 1_760_000_000_000;
    let ids = store
        .insert_dlq(
            &(0..100).map(|n| entry(n, now)).collect::<Vec<_>>(),
            1_000_000,
        )
        .expect("insert")
        .dlq_ids;
    let pages = store.page_count().expect("page count");
    store.limit_pages(pages).expect("limit");

    let refused = store
        .insert_dlq(
            &(100..200).map(|n| entry(n, now)).collect::<Vec<_>>(),
            1_000_000,
        )
        .expect_err("no room");
    assert!(
        matches!(&refused, StoreError::Full(m) if m.starts_with("the data directory is full")),
        "{refused:?}"
    );
    assert_eq!(store.dlq_count(0).expect("count"), 100, "nothing stored");
    assert!(store.may_refuse_writes(), "what /health asks first says so");
    assert!(store.write_refusal().is_some(), "degraded");
    assert!(matches!(
        store.put_url_group("orders", &[], now),
        Err(StoreError::Full(_))
    ));

    assert!(store.get_dlq(&ids[0], 0).expect("read").is_some());
    assert!(store.delete_dlq_one(&ids[0], 0).expect("delete one"));
    let (deleted, _) = store
        .delete_dlq_matching(PageQuery::first(&DlqFilter::default(), 1000))
        .expect("bulk delete");
    assert_eq!(deleted, 99);

    assert_eq!(store.write_refusal(), None, "the deletes made room");
    assert!(
        !store.may_refuse_writes(),
        "and /health's first question says so too"
    );
    store
        .insert_dlq(&[entry(500, now)], 1_000_000)
        .expect("writes work again");
}

/// The wall clock stepping backwards while the service runs, as the store sees it: entries
/// stamped an hour earlier than the ones before them. Ids stay unique (their sequence number is
/// stored, not taken from the clock), and retention measured on the stepped-back clock deletes
/// none of the young entries. (The service also stamps `createdAt` from a clock that never goes
/// back, `time::creation_ms`; stepping the real system clock would disturb the whole machine.)
#[test]
fn a_clock_stepping_backwards_keeps_ids_unique_and_deletes_no_young_entry() {
    use courier_service::store::{SqliteStore, Store};
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SqliteStore::open(&dir.path().join("courier.sqlite3")).expect("open");
    let now = 1_760_000_000_000;
    let stepped_back = now - 3_600_000;
    let mut ids = Vec::new();
    for created_at in [now, now, stepped_back, stepped_back, now] {
        ids.extend(
            store
                .insert_dlq(&[entry(ids.len(), created_at)], 1_000_000)
                .expect("insert")
                .dlq_ids,
        );
    }
    let unique: std::collections::BTreeSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "ids stay unique: {ids:?}");

    let retention = 60_000;
    let floor = stepped_back - retention;
    assert_eq!(store.purge_expired(floor).expect("purge"), 0);
    for id in &ids {
        assert!(
            store.get_dlq(id, floor).expect("read").is_some(),
            "{id} is young"
        );
    }
}
