//! What only a store several processes share has to hold: two stores on one database (as two
//! processes have) see each other's writes at once, and the upkeep's purge runs in one of them
//! at a time.

use super::*;

#[test]
fn two_stores_on_one_database_see_each_others_writes_at_once() {
    let Some(f) = fixture(Backend::Postgres) else {
        return;
    };
    let other = open_store(&f.path, f.database.as_ref());
    f.insert(&run_of("wfr_a", &[("a1", 1_000), ("a2", 2_000)]));
    assert_eq!(
        list_all(other.as_ref(), &DlqFilter::default(), 1, 0),
        ["a1", "a2"]
    );
    assert!(other.delete_dlq_one("a1", 0).expect("delete"));
    assert_eq!(
        list_all(f.store.as_ref(), &DlqFilter::default(), 10, 0),
        ["a2"]
    );
    assert!(f.store.shared() && other.shared());
}

#[test]
fn the_purge_runs_in_one_process_at_a_time() {
    let Some(f) = fixture(Backend::Postgres) else {
        return;
    };
    let database = f.database.as_ref().expect("PostgreSQL");
    f.insert(&run_of("wfr_old", &[("old1", 1_000), ("old2", 2_000)]));
    f.insert(&run_of("wfr_new", &[("new1", 9_000)]));
    // Another process purging holds the lock for the length of its transaction.
    let mut holder = postgres::Client::connect(database.url(), postgres::NoTls).expect("connect");
    let mut purging = holder.transaction().expect("begin");
    purging
        .execute(
            "SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))",
            &[&PostgresStore::PURGE_LOCK],
        )
        .expect("lock");
    assert_eq!(
        f.store.purge_expired(5_000).expect("purge"),
        0,
        "skipped while another process purges"
    );
    assert_eq!(
        f.store.dlq_count(0).expect("count"),
        3,
        "nothing removed twice or half"
    );
    purging.rollback().expect("end");
    assert_eq!(f.store.purge_expired(5_000).expect("purge"), 2);
    assert_eq!(
        list_all(f.store.as_ref(), &DlqFilter::default(), 10, 0),
        ["new1"]
    );
}
