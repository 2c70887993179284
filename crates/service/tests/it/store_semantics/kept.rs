//! When a list page may be kept and sent again (`docs/decisions.md#d21-kept-list-pages`): on
//! SQLite only while no write has committed since it was read and the retention floor hides
//! nothing; on PostgreSQL, whose other processes write unseen, never.

use super::*;

fn a_list_page_may_be_kept_only_until_a_write_or_the_floor_passes_the_oldest_entry(
    backend: Backend,
) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let base = 1_800_000_000_000;
    let runs: Vec<FailedWorkflowRun> = (0..6)
        .map(|i| entry(&format!("dlq_{i}"), base + i, &format!("run_{}", i / 2)))
        .collect();
    f.insert(&runs);
    let page = |floor: i64| {
        f.store
            .list_dlq_json(PageQuery::first(&DlqFilter::default(), 2).retained_from(floor))
            .expect("list")
    };
    if backend == Backend::Postgres {
        assert_eq!(f.store.list_generation(), None);
        assert_eq!(page(0).keep, None, "another process may write at any time");
        return;
    }

    let keep = page(0).keep.expect("kept: the floor hides nothing");
    assert_eq!(
        keep.floor_up_to, base,
        "until the floor passes the oldest entry"
    );
    assert_eq!(f.store.list_generation(), Some(keep.generation));
    assert_eq!(
        page(base).keep,
        Some(keep),
        "a floor at the oldest entry hides nothing"
    );
    let past_oldest = page(base + 1);
    assert_eq!(past_oldest.keep, None, "the floor hides the oldest entry");
    assert_eq!(past_oldest.messages.len(), 2);

    // Every kind of write moves the generation on, each tried where it changes something.
    let account = default_account("team@example.com", "token".into(), base);
    f.store.create_account(&account, "key").expect("account");
    let filter = DlqFilter::default().workflow_run_id("run_1");
    type Write<'a> = Box<dyn Fn(&dyn Store) + 'a>;
    let writes: Vec<(&str, Write<'_>)> = vec![
        (
            "insert",
            Box::new(|s| {
                s.insert_dlq(&[entry("dlq_9", base + 9, "run_9")], NO_LIMIT)
                    .unwrap();
            }),
        ),
        (
            "delete one",
            Box::new(|s| assert!(s.delete_dlq_one("dlq_9", 0).unwrap())),
        ),
        (
            "delete by ids",
            Box::new(|s| assert_eq!(s.delete_dlq_ids(&["dlq_5".into()], 0).unwrap(), 1)),
        ),
        (
            "delete matching",
            Box::new(|s| {
                assert_eq!(
                    s.delete_dlq_matching(PageQuery::first(&filter, 10))
                        .unwrap()
                        .0,
                    2
                )
            }),
        ),
        (
            "reclaim",
            Box::new(|s| assert!(s.reclaim_deleted(100).unwrap() > 0)),
        ),
        (
            "cancel",
            Box::new(|s| assert!(s.cancel_run("run_0", 0).unwrap())),
        ),
        (
            "purge",
            Box::new(|s| assert_eq!(s.purge_expired(base + 5).unwrap(), 1)),
        ),
        ("account", Box::new(|s| s.update_account(&account).unwrap())),
    ];
    for (write, run) in writes {
        let before = page(0).keep.expect("kept").generation;
        run(f.store.as_ref());
        let after = f.store.list_generation().expect("SQLite");
        assert!(after > before, "{write} left the generation at {before}");
    }
    assert!(
        page(0).messages.is_empty(),
        "and the store holds what those writes left: nothing"
    );
}

on_both_stores!(a_list_page_may_be_kept_only_until_a_write_or_the_floor_passes_the_oldest_entry,);
