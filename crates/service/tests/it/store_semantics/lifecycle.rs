//! Deletes, cancels, retention, eviction, reopening and rotation.

use super::*;
use crate::store_semantics::filters::varied_entries;
use crate::store_semantics::resources::search_index;

fn delete_by_ids_skips_unknown_and_repeated_ids(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    f.insert(&run_of("wfr_d", &[("a", 1), ("b", 2), ("c", 3)]));
    let deleted = f
        .store
        .delete_dlq_ids(&["a".into(), "zzz".into(), "a".into(), "c".into()], 0)
        .expect("delete");
    assert_eq!(deleted, 2);
    assert_eq!(
        list_all(f.store.as_ref(), &DlqFilter::default(), 10, 0),
        ["b"]
    );
    assert_eq!(f.store.delete_dlq_ids(&[], 0).expect("delete"), 0);
    assert!(f.store.delete_dlq_one("b", 0).expect("delete"));
    assert!(!f.store.delete_dlq_one("b", 0).expect("delete again"));
    assert_eq!(f.store.dlq_count(0).expect("count"), 0);
}

fn delete_matching_in_batches_reports_a_cursor_until_done(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let mut batch = Vec::new();
    for i in 0..400 {
        let mut e = entry(&format!("m{i:04}"), 1000 + i as i64, "wfr_m");
        e.flow_control_key = Some(if i % 8 < 5 { "hit" } else { "miss" }.into());
        batch.push(e);
    }
    f.insert(&batch);
    let filter = DlqFilter {
        flow_control_key: vec!["hit".into()],
        ..DlqFilter::default()
    };
    // 250 matching entries in batches of 100: 100, 100, 50.
    let batches = delete_in_batches(f.store.as_ref(), &filter, 100);
    for next in batches.iter().filter_map(|(_, next)| next.as_deref()) {
        assert!(
            f.store.get_dlq(next, 0).expect("get").is_none(),
            "the cursor is the last deleted id"
        );
    }
    let counts: Vec<u64> = batches.iter().map(|(count, _)| *count).collect();
    assert_eq!(counts, [100, 100, 50]);
    assert_eq!(f.store.dlq_count(0).expect("count"), 150);
    assert!(
        f.store
            .list_dlq(PageQuery::first(&filter, 10))
            .expect("list")
            .entries
            .is_empty()
    );
    // Exactly a multiple of the batch: the last full batch already says "done".
    let filter = DlqFilter {
        flow_control_key: vec!["miss".into()],
        ..DlqFilter::default()
    };
    let (count, next) = f
        .store
        .delete_dlq_matching(PageQuery::first(&filter, 150))
        .expect("delete");
    assert_eq!((count, next), (150, None));
    assert_eq!(f.store.dlq_count(0).expect("count"), 0);
}

fn cancel_removes_the_run_and_all_its_entries_once(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    f.insert(&run_of("wfr_a", &[("a1", 1), ("a2", 2), ("a3", 3)]));
    f.insert(&run_of("wfr_b", &[("b1", 4), ("b2", 5)]));
    assert!(f.store.cancel_run("wfr_a", 0).expect("cancel"));
    assert_eq!(
        list_all(f.store.as_ref(), &DlqFilter::default(), 10, 0),
        ["b1", "b2"]
    );
    assert!(!f.store.cancel_run("wfr_a", 0).expect("second cancel"));
    assert!(!f.store.cancel_run("wfr_never", 0).expect("unknown run"));
    // A run without DLQ entries can be cancelled too, once.
    f.store
        .insert_runs(&[ActiveRun {
            workflow_run_id: "wfr_live".into(),
            workflow_url: "https://example.com/wf".into(),
            workflow_created_at: 10,
        }])
        .expect("runs");
    assert!(f.store.cancel_run("wfr_live", 0).expect("cancel"));
    assert!(!f.store.cancel_run("wfr_live", 0).expect("second cancel"));
    // Deleting a run's entries does not make the run uncancellable.
    f.store
        .delete_dlq_ids(&["b1".into(), "b2".into()], 0)
        .expect("delete");
    assert!(f.store.cancel_run("wfr_b", 0).expect("cancel"));
    assert_eq!(f.store.dlq_count(0).expect("count"), 0);
}

fn retention_hides_old_entries_and_purge_removes_them(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    f.insert(&run_of(
        "wfr_r",
        &[("old", 1_000), ("edge", 2_000), ("new", 3_000)],
    ));
    let min = 2_000;
    assert_eq!(f.store.get_dlq("old", min).expect("get"), None);
    assert!(f.store.get_dlq("edge", min).expect("get").is_some());
    assert_eq!(
        list_all(f.store.as_ref(), &DlqFilter::default(), 10, min),
        ["edge", "new"]
    );
    assert_eq!(
        list_all(
            f.store.as_ref(),
            &DlqFilter {
                workflow_run_id: Some("wfr_r".into()),
                ..DlqFilter::default()
            },
            1,
            min
        ),
        ["edge", "new"]
    );
    assert_eq!(f.store.dlq_count(min).expect("count"), 2);
    // Through the label rows' copies of `created_at` too, and in counts of a filter.
    let labelled: Vec<FailedWorkflowRun> = run_of("wfr_l", &[("l-old", 1_500), ("l-new", 2_500)])
        .into_iter()
        .map(|entry| FailedWorkflowRun {
            labels: vec!["kept".into()],
            caller_ip: Some("192.0.2.1".into()),
            ..entry
        })
        .collect();
    f.insert(&labelled);
    let kept = DlqFilter {
        label: vec!["kept".into()],
        caller_ip: vec!["192.0.2.1".into()],
        ..DlqFilter::default()
    };
    assert_eq!(list_all(f.store.as_ref(), &kept, 10, min), ["l-new"]);
    assert_eq!(
        f.store.dlq_count_matching(&kept, min, 10).expect("count"),
        1
    );
    let (deleted, _) = f
        .store
        .delete_dlq_matching(PageQuery::first(&kept, 100).retained_from(min))
        .expect("delete");
    assert_eq!(deleted, 1, "the entry past retention is not deleted again");
    // A bulk delete does not count entries that are already gone.
    let (deleted, _) = f
        .store
        .delete_dlq_matching(PageQuery::first(&DlqFilter::default(), 100).retained_from(3_000))
        .expect("delete");
    assert_eq!(deleted, 1);
    assert_eq!(f.store.purge_expired(min).expect("purge"), 2);
    assert_eq!(f.store.dlq_count(0).expect("count"), 1);
    assert_eq!(f.store.get_dlq("old", 0).expect("get"), None);
}

fn a_full_dlq_evicts_its_oldest_entries(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    f.store
        .insert_dlq(&run_of("wfr_e", &[("c", 100), ("a", 300), ("b", 100)]), 5)
        .expect("insert");
    assert_eq!(f.store.dlq_count(0).expect("count"), 3);
    let large: Vec<(String, i64)> = (0..8).map(|i| (format!("z{i}"), 1000 + i)).collect();
    let large: Vec<(&str, i64)> = large.iter().map(|(id, at)| (id.as_str(), *at)).collect();
    // Each step: a batch, the room there is, what is left afterwards.
    let steps: [(&Stamps<'_>, u64, &[&str]); 4] = [
        // Six entries, room for five: the oldest (`e`, at 50) goes.
        (
            &[("d", 400), ("e", 50), ("f", 500)],
            5,
            &["a", "b", "c", "d", "f"],
        ),
        // Two more, one at a time: the two at 100 go, the tie broken by dlqId (`b` before `c`).
        (&[("g", 600)], 5, &["a", "c", "d", "f", "g"]),
        (&[("h", 700)], 5, &["a", "d", "f", "g", "h"]),
        // A batch larger than the limit keeps only its newest entries.
        (&large, 3, &["z5", "z6", "z7"]),
    ];
    for (entries, max_dlq_size, left) in steps {
        f.store
            .insert_dlq(&run_of("wfr_e", entries), max_dlq_size)
            .expect("insert");
        assert_eq!(
            list_all(f.store.as_ref(), &DlqFilter::default(), 10, 0),
            left,
            "after inserting {entries:?}"
        );
    }
}

fn everything_survives_closing_and_reopening(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let account = default_account("team@example.com", "token-1".into(), 1_700_000_000_000);
    f.store
        .create_account(&account, "mgmt-key")
        .expect("account");
    let rotated = f
        .store
        .rotate_credentials("token-2", "password-2")
        .expect("rotate");
    assert_eq!(rotated.token, "token-2");
    assert_eq!(rotated.password, "password-2");
    assert_eq!(
        rotated.id, account.id,
        "rotation keeps the rest of the record"
    );
    let entries = varied_entries();
    f.insert(&entries);
    f.store
        .insert_runs(&[ActiveRun {
            workflow_run_id: "wfr_live".into(),
            workflow_url: "https://example.com/wf".into(),
            workflow_created_at: 1,
        }])
        .expect("runs");
    let endpoints = [UrlGroupEndpoint {
        name: "primary".into(),
        url: "https://example.com/hook".into(),
    }];
    let group = f
        .store
        .put_url_group("orders", &endpoints, 1_000)
        .expect("group");
    let index = search_index();
    f.store.put_index(&index).expect("index");
    f.store
        .add_usage_batch(&[("delivered".into(), 60_000, 2.0)])
        .expect("usage");
    let f = f.reopened();
    let store = f.store.as_ref();
    let reopened = store.account().expect("account").expect("an account");
    assert_eq!(reopened, rotated);
    assert_eq!(
        store.management_key().expect("key").as_deref(),
        Some("mgmt-key")
    );
    assert_eq!(
        list_all(store, &DlqFilter::default(), 100, 0),
        ids(&entries)
    );
    assert_eq!(
        store.get_dlq("v0001", 0).expect("get"),
        Some(entries[1].clone())
    );
    assert!(store.cancel_run("wfr_live", 0).expect("cancel"));
    assert_eq!(store.url_group("orders").expect("group"), Some(group));
    assert_eq!(
        store.index(&index.id.to_string()).expect("index"),
        Some(index)
    );
    assert_eq!(
        store
            .usage_between("delivered", 0, i64::MAX)
            .expect("usage"),
        [(60_000, 2.0)]
    );
    // Generated ids stay unique across a reopen.
    let before: BTreeSet<String> = list_all(store, &DlqFilter::default(), 1000, 0)
        .into_iter()
        .collect();
    let first = store
        .insert_dlq(&[entry("", 9_000, "wfr_x")], NO_LIMIT)
        .expect("insert");
    let f = f.reopened();
    let store = f.store.as_ref();
    let second = store
        .insert_dlq(&[entry("", 9_000, "wfr_x")], NO_LIMIT)
        .expect("insert after reopen");
    assert_ne!(first, second);
    assert!(!before.contains(&second.dlq_ids[0]));
    f.assert_intact();
}

fn rotation_without_an_account_is_refused(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    assert!(matches!(
        f.store.rotate_credentials("t", "p"),
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(f.store.account().expect("account"), None);
}

on_both_stores!(
    delete_by_ids_skips_unknown_and_repeated_ids,
    delete_matching_in_batches_reports_a_cursor_until_done,
    cancel_removes_the_run_and_all_its_entries_once,
    retention_hides_old_entries_and_purge_removes_them,
    a_full_dlq_evicts_its_oldest_entries,
    everything_survives_closing_and_reopening,
    rotation_without_an_account_is_refused,
);
