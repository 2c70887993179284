//! Crash safety of the real `courier` binary: 25,000 DLQ entries, a filtered bulk delete racing
//! admin inserts, SIGKILL at several points, a restart on the same data, and proof that nothing
//! is torn: a sound database, every entry whole or gone, batches all-or-nothing, acknowledged
//! writes and deletes durable, `dlq_message_count` equal to the listing, credentials intact.
//! Deletes mark entries and the upkeep reclaims them: one kill lands while marking (the bulk
//! delete), one while reclaiming, and after each restart the reclaiming finishes with the count
//! still exact.

#[path = "../common/mod.rs"]
mod common;
mod reads;
mod workload;

use courier_service::time::now_ms;
use reads::*;
use workload::*;

use common::Courier;

use base64::Engine as _;
use courier_service::store::SqliteStore;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const ADMIN_TOKEN: &str = "crash-admin-token";
const SERVICE_TOKEN: &str = "crash-service-token";
const CUSTOMER_ID: &str = "crash@example.com";
const MANAGEMENT_KEY: &str = "crash-management-key";
/// Entries in the DLQ before the race starts.
const BASE_ENTRIES: usize = 25_000;
/// Entries per admin request while filling.
const FILL_BATCH: usize = 2_500;
/// Entries per admin request during the race (two writers).
const RACE_BATCH: usize = 250;
const WRITERS: usize = 2;
/// The bulk delete's filter: about half of all entries carry this label.
const DELETE_LABEL: &str = "purge";
/// Fields the list shape leaves out (the single-run shape has them).
const NOT_LISTED: [&str; 4] = [
    "messageId",
    "failureCallbackInfo",
    "failureCallbackHeader",
    "notBefore",
];

/// When the process is killed, counted from the start of the race.
#[derive(Clone, Copy, Debug)]
enum KillPoint {
    /// After this much concurrent activity.
    After(Duration),
    /// As soon as the bulk delete has this many acknowledged pages.
    AfterDeletePages(usize),
    /// After this many acknowledged pages, once the upkeep is seen reclaiming marked entries
    /// (fewer tombstones than a moment before, some left): a kill in the middle of reclaiming.
    WhileReclaiming(usize),
}

struct Scenario {
    kill: KillPoint,
    /// Rotate the service token (acknowledged) before the race.
    rotate: bool,
}

/// The running binary; killed if a test fails while it runs.
struct Server(Courier);

impl Server {
    /// Starts `courier serve` on an ephemeral port and waits until `/health` answers.
    async fn start(data_dir: &Path) -> Server {
        let account = [SERVICE_TOKEN, CUSTOMER_ID, MANAGEMENT_KEY, ADMIN_TOKEN];
        let server = Server(common::serve_as(
            data_dir,
            account,
            "error",
            Stdio::inherit(),
        ));
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let health = reqwest::get(format!("{}/health", server.0.base)).await;
            if health.is_ok_and(|r| r.status() == 200) {
                return server;
            }
            assert!(Instant::now() < deadline, "/health did not answer in 20 s");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn base(&self) -> &str {
        &self.0.base
    }

    /// `GET /v2/svc/stats` with the management key `key`: status and body.
    async fn account_stats(&self, key: &str) -> (u16, Value) {
        let request = client().get(format!("{}/v2/svc/stats", self.base()));
        send_json(request.basic_auth(CUSTOMER_ID, Some(key))).await
    }

    /// Asserts that the account statistics (read with the management key) count `listed`
    /// entries, the total the list operation returns.
    async fn assert_dlq_count(&self, listed: usize, when: &str) {
        let (status, stats) = self.account_stats(MANAGEMENT_KEY).await;
        assert_eq!(status, 200, "{when}: {stats}");
        assert_eq!(
            stats["dlq_message_count"].as_u64(),
            Some(listed as u64),
            "{when}: dlq_message_count equals the listed total"
        );
    }

    /// SIGKILL, and wait until the process is gone (so its files are closed).
    fn crash(mut self) {
        self.0.signal("-KILL");
        let status = self.0.child.wait().expect("wait");
        assert!(!status.success(), "SIGKILL ends the process: {status:?}");
    }

    /// SIGTERM, and wait for the clean exit.
    fn stop(mut self) {
        let status = self.0.terminate();
        assert!(status.success(), "clean exit on SIGTERM: {status:?}");
    }
}

/// Kills the binary at `scenario.kill` during the race, restarts it and checks everything.
async fn crash_and_check(
    number: usize,
    scenario: &Scenario,
    filled: &Path,
    base: &[Value],
    created_at: i64,
) {
    let started = Instant::now();
    let data = tempfile::tempdir().expect("tempdir");
    copy_dir(filled, data.path());
    let server = Server::start(data.path()).await;

    let token = if scenario.rotate {
        let rotated = rotate(server.base()).await;
        assert_ne!(rotated, SERVICE_TOKEN);
        rotated
    } else {
        SERVICE_TOKEN.to_owned()
    };

    let race = Arc::new(Race::default());
    let (pages, mut acknowledged_pages) = tokio::sync::watch::channel(0);
    let mut tasks = tokio::task::JoinSet::new();
    tasks.spawn(delete_loop(
        server.base().to_owned(),
        token.clone(),
        race.clone(),
        pages,
    ));
    for w in 0..WRITERS {
        tasks.spawn(writer(
            server.base().to_owned(),
            number,
            w,
            created_at,
            race.clone(),
        ));
    }
    let race_started = Instant::now();
    match scenario.kill {
        KillPoint::After(delay) => tokio::time::sleep(delay).await,
        KillPoint::AfterDeletePages(pages) => {
            wait_for_pages(&mut acknowledged_pages, pages).await;
        }
        KillPoint::WhileReclaiming(pages) => {
            wait_for_pages(&mut acknowledged_pages, pages).await;
            wait_until_reclaiming(&data.path().join("courier.sqlite3")).await;
        }
    }
    let killed_after = race_started.elapsed();
    server.crash();
    while let Some(done) = tasks.join_next().await {
        done.expect("race task");
    }

    let race = Arc::into_inner(race).expect("the race is over");
    let batches = race.batches.into_inner().expect("batches");
    let deletes = race.deletes.into_inner().expect("log");
    assert!(
        deletes.failures.is_empty(),
        "bulk delete failed: {:?}",
        deletes.failures
    );
    for (index, batch) in batches.iter().enumerate() {
        if let Outcome::Failed(status, body) = &batch.outcome {
            panic!("race batch {index} was refused: {status} {body}");
        }
    }

    // The database, read directly while no process has it open.
    {
        let store = SqliteStore::open(&data.path().join("courier.sqlite3")).expect("open store");
        assert_eq!(store.integrity_check().expect("integrity_check"), "ok");
        assert_eq!(
            store.foreign_key_violations().expect("foreign_key_check"),
            0,
            "labels whose entry is gone"
        );
        assert_eq!(
            store.label_copies_out_of_step().expect("label copies"),
            0,
            "label rows whose copies of the entry's filter columns disagree with it"
        );
    }

    let server = Server::start(data.path()).await;
    let listed = list_all(server.base(), &token).await;

    // Credentials: the live token (the rotated one, if rotated) and the management key work;
    // a token replaced before the crash stays replaced.
    if scenario.rotate {
        let (status, body) = send_json(
            client()
                .get(format!("{}/v2/workflows/dlq?count=1", server.base()))
                .bearer_auth(SERVICE_TOKEN),
        )
        .await;
        assert_eq!(status, 401, "the token replaced before the crash: {body}");
    }
    // The management key works after the restart.
    server.assert_dlq_count(listed.len(), "after restart").await;
    let (status, body) = server.account_stats("not-the-key").await;
    assert_eq!(status, 401, "a wrong management key: {body}");

    // Every entry ever inserted, with what must have become of it.
    let delete_reached = deletes.acknowledged.last().cloned();
    let mut known: HashSet<&str> = HashSet::new();
    let mut present = 0usize;
    // Pages delete in ascending id order: the matching base entries that are gone form a prefix
    // of them; a hole is an entry that vanished before the delete reached it.
    let mut first_matching_kept: Option<&str> = None;
    for sent in base {
        let id = id_of(sent);
        known.insert(id);
        match listed.get(id) {
            Some(got) => {
                assert_listed_whole(sent, got);
                present += 1;
                if matches_delete(sent) {
                    first_matching_kept.get_or_insert(id);
                    assert!(
                        !deletes.finished && delete_reached.as_deref().is_none_or(|last| id > last),
                        "{id} matches the delete filter, which an acknowledged page passed \
                         (reached {delete_reached:?}, finished {})",
                        deletes.finished
                    );
                }
            }
            None => {
                assert!(
                    matches_delete(sent),
                    "{id} does not match the delete filter and was never deleted, yet it is gone"
                );
                assert!(
                    first_matching_kept.is_none(),
                    "{id} is gone but {first_matching_kept:?}, before it and matching too, is \
                     kept: the bulk delete does not go in id order, or an entry vanished"
                );
            }
        }
    }
    let (mut acknowledged, mut landed, mut lost) = (0, 0, 0);
    for (index, batch) in batches.iter().enumerate() {
        let kept: Vec<bool> = batch
            .entries
            .iter()
            .filter(|e| !matches_delete(e))
            .map(|e| listed.contains_key(id_of(e)))
            .collect();
        let all = kept.iter().all(|&k| k);
        assert!(
            all || kept.iter().all(|&k| !k),
            "race batch {index} is partly stored: {} of its {} undeletable entries",
            kept.iter().filter(|&&k| k).count(),
            kept.len()
        );
        match batch.outcome {
            Outcome::Created => {
                acknowledged += 1;
                assert!(all, "race batch {index} was acknowledged (201) but is gone");
            }
            _ if all => landed += 1,
            _ => lost += 1,
        }
        for sent in &batch.entries {
            let id = id_of(sent);
            known.insert(id);
            if let Some(got) = listed.get(id) {
                assert!(all, "{id} survives from a batch that was not stored");
                assert_listed_whole(sent, got);
                present += 1;
            }
        }
    }
    let strangers: Vec<&String> = listed
        .keys()
        .filter(|id| !known.contains(id.as_str()))
        .collect();
    assert!(
        strangers.is_empty(),
        "entries never inserted: {strangers:?}"
    );
    assert_eq!(present, listed.len());

    // GET agrees with the listing: every race entry and every 25th base entry, whole or 404.
    let by_id: BTreeMap<&str, &Value> = base
        .iter()
        .step_by(25)
        .chain(batches.iter().flat_map(|b| &b.entries))
        .map(|e| (id_of(e), e))
        .collect();
    let fetched = get_all(
        server.base(),
        &token,
        by_id.keys().map(|id| id.to_string()).collect(),
    )
    .await;
    assert_eq!(fetched.len(), by_id.len());
    for (id, got) in &fetched {
        let sent = by_id[id.as_str()];
        assert_eq!(
            got.is_some(),
            listed.contains_key(id),
            "{id}: GET and list disagree"
        );
        if let Some(got) = got {
            for (key, value) in sent.as_object().expect("object") {
                assert_eq!(&got[key], value, "{id}: `{key}` differs on GET");
            }
        }
    }
    // The upkeep reclaims what the deletes marked before the crash; the count stays exact.
    let database = data.path().join("courier.sqlite3");
    let deadline = Instant::now() + Duration::from_secs(30);
    while tombstones(&database) > 0 {
        assert!(
            Instant::now() < deadline,
            "marked entries were not reclaimed in 30 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let relisted = list_all(server.base(), &token).await;
    assert!(
        relisted.keys().eq(listed.keys()),
        "reclaiming changed what is listed: {} entries before, {} after",
        listed.len(),
        relisted.len()
    );
    server
        .assert_dlq_count(relisted.len(), "once everything is reclaimed")
        .await;
    drop(server);
    eprintln!(
        "crash: {:?} (rotated: {}) killed after {} ms: {} delete pages acknowledged ({} deleted, \
         finished {}), race batches {acknowledged} acknowledged / {landed} stored unacknowledged / \
         {lost} not stored; {} entries after restart; {} GETs; {:.1} s",
        scenario.kill,
        scenario.rotate,
        killed_after.as_millis(),
        deletes.acknowledged.len(),
        deletes.deleted,
        deletes.finished,
        listed.len(),
        fetched.len(),
        started.elapsed().as_secs_f64()
    );
}

/// Waits (at most 30 s) until the bulk delete has acknowledged `pages` pages; ends early if
/// the loop stops (its failures are reported by the caller).
async fn wait_for_pages(acknowledged: &mut tokio::sync::watch::Receiver<usize>, pages: usize) {
    let reached = acknowledged.wait_for(|&count| count >= pages);
    let _ = tokio::time::timeout(Duration::from_secs(30), reached)
        .await
        .expect("the bulk delete acknowledges pages within 30 s");
}

/// Entries marked deleted and not reclaimed yet, read beside the running service (WAL).
fn tombstones(database: &Path) -> u64 {
    rusqlite::Connection::open(database)
        .and_then(|c| c.query_row("SELECT COUNT(*) FROM dlq_tombstones", [], |r| r.get(0)))
        .expect("count tombstones")
}

/// Returns once the tombstones are seen going down with some left: reclaiming is under way.
async fn wait_until_reclaiming(database: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut before = tombstones(database);
    loop {
        let now = tombstones(database);
        if now > 0 && now < before {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "never saw the upkeep reclaiming ({now} marked)"
        );
        before = now;
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// The foreign-key and label-copy checks can see a violation, so their zeros in the crash test
/// mean something.
#[test]
fn foreign_key_and_label_copy_violations_are_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("courier.sqlite3");
    let store = SqliteStore::open(&path).expect("open");
    assert_eq!(store.foreign_key_violations().expect("check"), 0);
    let raw = rusqlite::Connection::open(&path).expect("raw");
    raw.execute_batch(
        "PRAGMA foreign_keys = OFF;
         INSERT INTO dlq_labels (label, dlq_id, seq, created_at, workflow_url, workflow_run_id, workflow_created_at)
             VALUES ('x', 'gone', 1, 0, 'https://gone.example', 'wfr_gone', 0);",
    )
    .expect("orphan label");
    drop(raw);
    assert_eq!(store.foreign_key_violations().expect("check"), 1);
    // The orphan copies columns of a row that does not exist: out of step too.
    assert_eq!(store.label_copies_out_of_step().expect("check"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_bulk_delete_and_inserts_loses_or_tears_nothing() {
    let created_at = now_ms() - 60_000;
    let filled = tempfile::tempdir().expect("tempdir");
    let base: Vec<Value> = (0..BASE_ENTRIES)
        .map(|n| entry(&base_id(n), n, created_at))
        .collect();
    fill(filled.path(), &base).await;
    // The earliest kill lands before the first delete page is acknowledged (a kill at once
    // landed there too, so it was dropped: each scenario's checking of every entry is most of its time).
    let scenarios = [
        Scenario {
            kill: KillPoint::After(Duration::from_millis(50)),
            rotate: true,
        },
        Scenario {
            kill: KillPoint::After(Duration::from_millis(200)),
            rotate: false,
        },
        Scenario {
            kill: KillPoint::AfterDeletePages(4),
            rotate: true,
        },
        Scenario {
            kill: KillPoint::WhileReclaiming(6),
            rotate: false,
        },
    ];
    for (number, scenario) in scenarios.iter().enumerate() {
        crash_and_check(number, scenario, filled.path(), &base, created_at).await;
    }
}
