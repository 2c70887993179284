//! Keyset pagination against concurrent inserts, deletes and an open write transaction.

use super::*;
use courier_service::store::Page;

fn keyset_pagination_returns_every_entry_once_in_order(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let batch: Vec<_> = (0..1050)
        .map(|i| entry("", 1_700_000_000_000 + (i % 97) as i64, "wfr_page"))
        .collect();
    let inserted: BTreeSet<String> = f
        .store
        .insert_dlq(&batch, NO_LIMIT)
        .expect("insert")
        .dlq_ids
        .into_iter()
        .collect();
    let pages = every_page(&f, 100);
    assert_eq!(pages.len(), 11);
    let listed: Vec<String> = pages.iter().flat_map(|page| ids(&page.entries)).collect();
    assert_eq!(listed.len(), 1050);
    assert_strictly_ascending(&listed);
    assert_eq!(listed.into_iter().collect::<BTreeSet<_>>(), inserted);

    // When the last page is exactly full, it still says there is no more.
    f.store
        .delete_dlq_ids(&inserted.iter().take(50).cloned().collect::<Vec<_>>(), 0)
        .expect("delete");
    let pages = every_page(&f, 100);
    assert!(pages.iter().all(|page| page.entries.len() == 100));
    assert_eq!(pages.len(), 10, "no empty trailing page");
}

/// Every page of an unfiltered scan of at most `size` entries each, following the cursor.
fn every_page(f: &Fixture, size: usize) -> Vec<Page> {
    let mut pages = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = f
            .store
            .list_dlq(PageQuery::first(&DlqFilter::default(), size).after(after.as_deref()))
            .expect("list");
        after = page.next_after.clone();
        pages.push(page);
        if after.is_none() {
            return pages;
        }
    }
}

fn pagination_between_inserts_and_deletes_never_repeats_or_skips_stable_entries(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    // Stable entries exist for the whole scan; volatile ones come and go between pages,
    // on both sides of the cursor.
    let stable: Vec<_> = (0..400)
        .map(|i| entry(&format!("e{:05}-s", i * 10), 1000, "wfr_stable"))
        .collect();
    let volatile: Vec<_> = (0..400)
        .map(|i| entry(&format!("e{:05}-v", i * 10 + 5), 1000, "wfr_volatile"))
        .collect();
    f.insert(&stable);
    f.insert(&volatile);
    let mut listed = Vec::new();
    let mut after: Option<String> = None;
    let mut round = 0;
    loop {
        let page = f
            .store
            .list_dlq(PageQuery::first(&DlqFilter::default(), 50).after(after.as_deref()))
            .expect("list");
        listed.extend(ids(&page.entries));
        let Some(next) = page.next_after else { break };
        after = Some(next);
        // Delete a volatile entry behind and one ahead of the cursor; add new ones both sides.
        let behind = format!("e{:05}-v", round * 40 + 5);
        let ahead = format!("e{:05}-v", 3995 - round * 40);
        f.store.delete_dlq_ids(&[behind, ahead], 0).expect("delete");
        f.insert(&[
            entry(&format!("e{:05}-n", round * 10 + 1), 1000, "wfr_new"),
            entry(&format!("e{:05}-n", 3999 - round * 10), 1000, "wfr_new"),
        ]);
        round += 1;
    }
    assert!(round >= 10, "the scan spans many changes");
    assert_strictly_ascending(&listed);
    let listed_set: BTreeSet<_> = listed.iter().cloned().collect();
    for id in ids(&stable) {
        assert!(listed_set.contains(&id), "stable entry {id} was skipped");
    }
}

fn pagination_alongside_a_writer_thread_never_repeats_or_skips_stable_entries(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let store: Arc<dyn Store> = Arc::from(f.store);
    let stable: Vec<_> = (0..600)
        .map(|i| entry(&format!("t{:05}-s", i * 2), 1000, "wfr_stable"))
        .collect();
    store.insert_dlq(&stable, NO_LIMIT).expect("insert");
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let store = Arc::clone(&store);
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let id = format!("t{:05}-w{n}", (n * 7919) % 1200 + 1);
                store
                    .insert_dlq(&[entry(&id, 1000, "wfr_w")], NO_LIMIT)
                    .expect("insert");
                if n % 2 == 1 {
                    store.delete_dlq_one(&id, 0).expect("delete");
                }
                n += 1;
            }
            n
        })
    };
    let mut scans = 0;
    let deadline = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < deadline || scans < 3 {
        let listed = list_all(store.as_ref(), &DlqFilter::default(), 37, 0);
        assert_strictly_ascending(&listed);
        let set: BTreeSet<_> = listed.into_iter().collect();
        for id in ids(&stable) {
            assert!(set.contains(&id), "stable entry {id} was skipped");
        }
        scans += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let writes = writer.join().expect("writer");
    assert!(writes > 0, "the writer ran during the scans");
}

#[test]
fn reads_do_not_wait_for_an_open_write_transaction() {
    // SQLite's write lock; PostgreSQL's MVCC never made readers wait.
    let f = fixture(Backend::Sqlite).expect("SQLite runs everywhere");
    f.insert(&[entry("committed", 1000, "wfr_r")]);
    // Another connection holds the write lock with an uncommitted row.
    let mut other = rusqlite::Connection::open(&f.path).expect("raw");
    let transaction = other
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .expect("begin");
    transaction
        .execute("DELETE FROM dlq_rows WHERE dlq_id = 'committed'", [])
        .expect("uncommitted delete");
    let started = Instant::now();
    let page = f
        .store
        .list_dlq(PageQuery::first(&DlqFilter::default(), 10))
        .expect("list");
    let one = f.store.get_dlq("committed", 0).expect("get");
    let count = f.store.dlq_count(0).expect("count");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "reads waited {:?} behind a writer",
        started.elapsed()
    );
    assert_eq!(
        ids(&page.entries),
        ["committed"],
        "uncommitted change is invisible"
    );
    assert!(one.is_some());
    assert_eq!(count, 1);
    transaction.rollback().expect("rollback");
}

on_both_stores!(
    keyset_pagination_returns_every_entry_once_in_order,
    pagination_between_inserts_and_deletes_never_repeats_or_skips_stable_entries,
    pagination_alongside_a_writer_thread_never_repeats_or_skips_stable_entries,
);
