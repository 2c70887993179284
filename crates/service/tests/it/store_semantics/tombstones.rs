//! Deletes mark entries and the upkeep reclaims them (on SQLite; PostgreSQL deletes at once and
//! its VACUUM reclaims, so there the checks of the marks themselves are skipped): every read honours a mark at
//! once, counts stay exact before and after reclaiming, a marked id can be used again, and the
//! rows, tombstones and labels really leave the file.

use super::*;

/// Rows of a table in the store's file, read beside the store (WAL: committed data is visible).
fn raw_count(path: &std::path::Path, sql: &str) -> u64 {
    rusqlite::Connection::open(path)
        .expect("raw")
        .query_row(sql, [], |row| row.get(0))
        .expect(sql)
}

/// Longer than the store's quiet time, after which reclaiming runs in full.
fn quiet() {
    std::thread::sleep(SqliteStore::RECLAIM_QUIET + Duration::from_millis(50));
}

fn labelled(dlq_id: &str, created_at: i64, labels: &[&str]) -> FailedWorkflowRun {
    let mut entry = entry(dlq_id, created_at, &format!("wfr_{dlq_id}"));
    entry.labels = labels.iter().map(|l| (*l).to_owned()).collect();
    entry
}

fn deletes_mark_reads_honour_the_marks_at_once_and_reclaiming_keeps_every_count(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let entries: Vec<_> = (0..10)
        .map(|i| {
            labelled(
                &format!("e{i}"),
                1_000 + i,
                if i % 2 == 0 { &["even"] } else { &["odd"] },
            )
        })
        .collect();
    f.insert(&entries);

    // Three delete paths: by ids, one, and by filter (the even entries e0, e2, e4, e6, e8).
    assert_eq!(
        f.store
            .delete_dlq_ids(&["e1".into(), "e3".into(), "nope".into()], 0)
            .unwrap(),
        2
    );
    assert!(f.store.delete_dlq_one("e5", 0).unwrap());
    assert!(
        !f.store.delete_dlq_one("e5", 0).unwrap(),
        "a marked entry is gone for a second delete"
    );
    let even = DlqFilter::new().label("even");
    let (deleted, _) = f
        .store
        .delete_dlq_matching(PageQuery::first(&even, 100))
        .unwrap();
    assert_eq!(deleted, 5);

    let live = ["e7", "e9"];
    let check_reads = |when: &str| {
        assert_eq!(
            list_all(f.store.as_ref(), &DlqFilter::default(), 3, 0),
            live,
            "{when}: list"
        );
        assert_eq!(f.store.dlq_count(0).unwrap(), 2, "{when}: count");
        assert_eq!(
            f.store.dlq_count(1_008).unwrap(),
            1,
            "{when}: count within retention"
        );
        assert_eq!(
            f.store.dlq_count_matching(&even, 0, 100).unwrap(),
            0,
            "{when}: count matching"
        );
        assert_eq!(
            list_all(f.store.as_ref(), &DlqFilter::new().label("odd"), 1, 0),
            live,
            "{when}: by label"
        );
        for gone in ["e0", "e1", "e5", "e8"] {
            assert!(
                f.store.get_dlq(gone, 0).unwrap().is_none(),
                "{when}: get {gone}"
            );
        }
        assert!(
            f.store.get_dlq("e9", 0).unwrap().is_some(),
            "{when}: get e9"
        );
    };
    check_reads("marked");
    if f.backend == Backend::Postgres {
        // PostgreSQL removed the rows at once (its MVCC is the marking, VACUUM the reclaiming):
        // nothing is left for the store to reclaim, and every read already holds.
        assert_eq!(f.store.reclaim_deleted(100).unwrap(), 0);
        return;
    }
    // Marked, not removed: the rows and their labels are still in the file.
    assert_eq!(raw_count(&f.path, "SELECT COUNT(*) FROM dlq_rows"), 10);
    assert_eq!(raw_count(&f.path, "SELECT COUNT(*) FROM dlq_tombstones"), 8);

    // Right after request writes, reclaiming is paced: one batch of at most 100, then nothing
    // for 100 ms.
    assert_eq!(f.store.reclaim_deleted(1).unwrap(), 1);
    assert_eq!(
        f.store.reclaim_deleted(3).unwrap(),
        0,
        "paced while requests write"
    );
    check_reads("one reclaimed");
    quiet();
    // Quiet: reclaimed in full, in the batches asked for, as the upkeep does.
    let mut reclaimed = Vec::new();
    loop {
        match f.store.reclaim_deleted(3).unwrap() {
            0 => break,
            n => reclaimed.push(n),
        }
    }
    assert_eq!(reclaimed, [3, 3, 1]);
    check_reads("reclaimed");
    assert_eq!(raw_count(&f.path, "SELECT COUNT(*) FROM dlq_rows"), 2);
    assert_eq!(raw_count(&f.path, "SELECT COUNT(*) FROM dlq_tombstones"), 0);
    assert_eq!(
        raw_count(&f.path, "SELECT COUNT(*) FROM dlq_labels"),
        2,
        "labels go with their rows"
    );
    f.assert_intact();
    assert_eq!(
        raw_count(&f.path, "SELECT COUNT(*) FROM pragma_foreign_key_check"),
        0
    );
}

fn a_deleted_id_can_be_stored_again_before_it_is_reclaimed(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    f.insert(&[labelled("again", 1_000, &["first"])]);
    assert!(f.store.delete_dlq_one("again", 0).unwrap());
    f.insert(&[labelled("again", 2_000, &["second"])]);
    let stored = f.store.get_dlq("again", 0).unwrap().expect("the new entry");
    assert_eq!(
        (stored.created_at, stored.labels),
        (2_000, vec!["second".to_owned()])
    );
    assert_eq!(f.store.dlq_count(0).unwrap(), 1);
    assert!(list_all(f.store.as_ref(), &DlqFilter::new().label("first"), 10, 0).is_empty());
    // A live id is still refused.
    assert!(matches!(
        f.store
            .insert_dlq(&[labelled("again", 3_000, &[])], NO_LIMIT),
        Err(StoreError::Invalid(_))
    ));
    quiet();
    assert_eq!(
        f.store.reclaim_deleted(10).unwrap(),
        0,
        "the old row went when the id was reused"
    );
}

fn eviction_and_retention_work_with_marked_entries(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let entries: Vec<_> = (0..6)
        .map(|i| labelled(&format!("r{i}"), 1_000 + i, &[]))
        .collect();
    f.insert(&entries);
    assert!(f.store.delete_dlq_one("r4", 0).unwrap());
    // Five live entries; a limit of 4 with one more evicts the two oldest live ones.
    f.store
        .insert_dlq(&[labelled("r6", 1_006, &[])], 4)
        .unwrap();
    assert_eq!(
        list_all(f.store.as_ref(), &DlqFilter::default(), 10, 0),
        ["r2", "r3", "r5", "r6"]
    );
    assert_eq!(f.store.dlq_count(0).unwrap(), 4);
    // Retention removes marked and live rows alike and counts only the live ones.
    assert_eq!(
        f.store.purge_expired(1_005).unwrap(),
        2,
        "r2 and r3 were live"
    );
    assert_eq!(
        list_all(f.store.as_ref(), &DlqFilter::default(), 10, 0),
        ["r5", "r6"]
    );
    if f.backend == Backend::Postgres {
        return;
    }
    assert_eq!(
        raw_count(
            &f.path,
            "SELECT COUNT(*) FROM dlq_tombstones JOIN dlq_rows ON dlq_rows.rowid = dlq_tombstones.seq"
        ),
        raw_count(&f.path, "SELECT COUNT(*) FROM dlq_tombstones"),
        "no tombstone outlives its row"
    );
    quiet();
    while f.store.reclaim_deleted(100).unwrap() > 0 {}
    assert_eq!(raw_count(&f.path, "SELECT COUNT(*) FROM dlq_rows"), 2);
}

on_both_stores!(
    deletes_mark_reads_honour_the_marks_at_once_and_reclaiming_keeps_every_count,
    a_deleted_id_can_be_stored_again_before_it_is_reclaimed,
    eviction_and_retention_work_with_marked_entries,
);
