//! Crash safety of the real `courier` binary: 50,000 DLQ entries, a filtered bulk delete racing
//! admin inserts, SIGKILL at several points, a restart on the same data, and proof that nothing
//! is torn: a sound database, every entry whole or gone, batches all-or-nothing, acknowledged
//! writes and deletes durable, `dlq_message_count` equal to the listing, credentials intact.

mod common;

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
const BASE_ENTRIES: usize = 50_000;
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
        let server = Server(Courier::spawn(
            common::courier_serve(data_dir)
                .args(["--admin-token", ADMIN_TOKEN])
                .args(["--service-token", SERVICE_TOKEN])
                .args(["--customer-id", CUSTOMER_ID])
                .args(["--management-key", MANAGEMENT_KEY])
                .env("RUST_LOG", "error")
                .stderr(Stdio::inherit()),
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

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as i64
}

/// Entry `n` with id `id`: every kind of field set, varied; about half carry [`DELETE_LABEL`].
fn entry(id: &str, n: usize, created_at: i64) -> Value {
    let workflow = [
        "https://a.example/wf",
        "https://b.example/wf",
        "https://c.example/wf",
    ][n % 3];
    let state = [
        "CALLBACK_INPROGRESS",
        "CALLBACK_SUCCESS",
        "CALLBACK_FAIL",
        "CALLBACK_CANCELED",
    ][n % 4];
    let mut labels = vec![format!("team-{}", n % 7)];
    if n % 10 < 5 {
        labels.push(DELETE_LABEL.to_owned());
    }
    let mut value = json!({
        "dlqId": id,
        "messageId": format!("msg_{id}"),
        "url": format!("{workflow}/step-{}", n % 5),
        "method": "POST",
        "header": {"Content-Type": ["application/json"], "X-N": [n.to_string()]},
        "maxRetries": (n % 6) as i64,
        "createdAt": created_at + (n % 1000) as i64,
        "callerIP": format!("10.0.{}.{}", n % 3, n % 250),
        "workflowRunId": format!("wfr_{id}"),
        "workflowCreatedAt": created_at - 1000,
        "workflowUrl": workflow,
        "flowControlKey": format!("key-{}", n % 2),
        "labels": labels,
        "failureCallback": format!("{workflow}/failure"),
        "failureCallbackInfo": {"state": state, "responseStatus": 500 + (n % 4) as i64},
        "responseStatus": 500 + (n % 5) as i64,
        "responseHeader": {"Retry-After": [(n % 60).to_string()]},
    });
    let object = value.as_object_mut().expect("object");
    if n.is_multiple_of(6) {
        // Not UTF-8, so the admin API takes it as base64.
        let bytes = [0xff, 0xfe, (n % 256) as u8, 0x00];
        object.insert(
            "bodyBase64".into(),
            base64::engine::general_purpose::STANDARD
                .encode(bytes)
                .into(),
        );
    } else {
        object.insert("body".into(), format!("{{\"n\":{n}}}").into());
        object.insert("responseBody".into(), format!("failed {n}").into());
    }
    value
}

fn base_id(n: usize) -> String {
    format!("e{n:06}")
}

fn matches_delete(entry: &Value) -> bool {
    entry["labels"]
        .as_array()
        .is_some_and(|labels| labels.iter().any(|l| l == DELETE_LABEL))
}

fn id_of(entry: &Value) -> &str {
    entry["dlqId"].as_str().expect("dlqId")
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("client")
}

/// Posts one batch through the admin API: `Ok(status, body)` or `Err` when no response arrived.
async fn post_batch(
    client: &reqwest::Client,
    base: &str,
    batch: &[Value],
) -> Result<(u16, Value), reqwest::Error> {
    let response = client
        .post(format!("{base}/admin/v1/dlq"))
        .bearer_auth(ADMIN_TOKEN)
        .json(batch)
        .send()
        .await?;
    let status = response.status().as_u16();
    let body = response.json().await?;
    Ok((status, body))
}

async fn send_json(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Fills a fresh data directory with the base entries and stops the service cleanly.
async fn fill(data_dir: &Path, entries: &[Value]) {
    let server = Server::start(data_dir).await;
    let client = client();
    // Lift the per-second limit: the race and the checks send far more than 1000 a second.
    let (status, body) = send_json(
        client
            .patch(format!("{}/admin/v1/account", server.base()))
            .bearer_auth(ADMIN_TOKEN)
            .json(&json!({"max_requests_per_second": 1_000_000})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for (index, batch) in entries.chunks(FILL_BATCH).enumerate() {
        let (client, base, batch) = (client.clone(), server.base().to_owned(), batch.to_vec());
        tasks.spawn(async move {
            let (status, body) = post_batch(&client, &base, &batch).await.expect("fill");
            assert_eq!(status, 201, "fill batch {index}: {body}");
            let ids: Vec<&str> = batch.iter().map(id_of).collect();
            assert_eq!(body["dlqIds"], json!(ids), "fill batch {index}");
        });
        // Two requests in flight at a time.
        if tasks.len() >= 2 {
            tasks.join_next().await.expect("task").expect("fill task");
        }
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("fill task");
    }
    eprintln!(
        "crash: filled {BASE_ENTRIES} entries in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    server.stop();
}

fn copy_dir(from: &Path, to: &Path) {
    for file in std::fs::read_dir(from).expect("read data dir") {
        let file = file.expect("dir entry");
        std::fs::copy(file.path(), to.join(file.file_name())).expect("copy");
    }
}

/// What became of one admin request of the race.
enum Outcome {
    /// No response arrived (in flight at the kill, or refused after it).
    Unknown,
    Created,
    Failed(u16, String),
}

struct Batch {
    entries: Vec<Value>,
    outcome: Outcome,
}

#[derive(Default)]
struct DeleteLog {
    /// The last id deleted by each acknowledged page (from its cursor).
    acknowledged: Vec<String>,
    /// The loop reached the end (a page without a cursor) before the kill.
    finished: bool,
    deleted: u64,
    failures: Vec<String>,
}

/// Everything the race did, as the clients saw it.
#[derive(Default)]
struct Race {
    batches: Mutex<Vec<Batch>>,
    deletes: Mutex<DeleteLog>,
}

/// Deletes matching entries page by page until the end or the first missing response; `pages`
/// counts the acknowledged pages (and closes when the loop ends).
async fn delete_loop(
    base: String,
    token: String,
    race: Arc<Race>,
    pages: tokio::sync::watch::Sender<usize>,
) {
    let client = client();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!("{base}/v2/workflows/dlq?label={DELETE_LABEL}&count=1000");
        if let Some(cursor) = &cursor {
            url.push_str(&format!("&cursor={cursor}"));
        }
        let Ok(response) = client.delete(url).bearer_auth(&token).send().await else {
            return;
        };
        let status = response.status().as_u16();
        let Ok(body) = response.json::<Value>().await else {
            return;
        };
        let mut log = race.deletes.lock().expect("log");
        if status != 200 {
            log.failures.push(format!("{status}: {body}"));
            return;
        }
        log.deleted += body["deleted"].as_u64().expect("deleted");
        match body["cursor"].as_str() {
            Some(next) => {
                let last = courier_service::cursor::decode(next).expect("a cursor we issued");
                log.acknowledged.push(last);
                pages.send_replace(log.acknowledged.len());
                cursor = Some(next.to_owned());
            }
            None => {
                log.finished = true;
                return;
            }
        }
    }
}

async fn writer(base: String, scenario: usize, writer: usize, created_at: i64, race: Arc<Race>) {
    let client = client();
    for batch_number in 0..200 {
        let entries: Vec<Value> = (0..RACE_BATCH)
            .map(|j| {
                let k = batch_number * RACE_BATCH + j;
                // Spread over the base ids, so the delete's keyset scan meets them anywhere.
                let position = (k * 7919 + writer * 104_729) % BASE_ENTRIES;
                let id = format!("e{position:06}-s{scenario}w{writer}b{batch_number:03}i{j:03}");
                entry(&id, BASE_ENTRIES + k + writer, created_at)
            })
            .collect();
        assert!(
            entries.iter().any(|e| !matches_delete(e)),
            "every race batch has entries the delete leaves alone, to see all-or-nothing"
        );
        let index = {
            let mut batches = race.batches.lock().expect("batches");
            batches.push(Batch {
                entries: entries.clone(),
                outcome: Outcome::Unknown,
            });
            batches.len() - 1
        };
        let outcome = match post_batch(&client, &base, &entries).await {
            Ok((201, body)) => {
                let ids: Vec<&str> = entries.iter().map(id_of).collect();
                if body["dlqIds"] == json!(ids) {
                    Outcome::Created
                } else {
                    Outcome::Failed(201, format!("unexpected ids: {body}"))
                }
            }
            Ok((status, body)) => Outcome::Failed(status, body.to_string()),
            Err(_) => return,
        };
        race.batches.lock().expect("batches")[index].outcome = outcome;
    }
}

/// Rotates the service token; returns the new one.
async fn rotate(base: &str) -> String {
    let (status, body) = send_json(
        client()
            .post(format!("{base}/v2/svc/user/rotatetoken"))
            .basic_auth(CUSTOMER_ID, Some(MANAGEMENT_KEY)),
    )
    .await;
    assert_eq!(status, 200, "rotation: {body}");
    body["token"].as_str().expect("token").to_owned()
}

/// Where the parallel listing splits the id space: a partition starts after one of these keys
/// (no base id, and no race id, which extends a base id, falls between `e0xx49~` and `e0xx50`).
const LIST_SPLITS: [&str; 3] = ["e0124~", "e0249~", "e0374~"];

/// Every entry of the DLQ by id: the whole id space in four partitions listed side by side (both
/// cores busy), each following the cursor from a keyset position until it passes the next
/// partition's start; asserts ascending, unrepeated ids.
async fn list_all(base: &str, token: &str) -> BTreeMap<String, Value> {
    let mut tasks = tokio::task::JoinSet::new();
    for part in 0..=LIST_SPLITS.len() {
        let start = part
            .checked_sub(1)
            .map(|i| courier_service::cursor::encode(LIST_SPLITS[i]));
        let end = LIST_SPLITS.get(part).map(|end| end.to_string());
        let (base, token) = (base.to_owned(), token.to_owned());
        tasks.spawn(async move { list_part(&base, &token, start, end).await });
    }
    let mut listed = BTreeMap::new();
    while let Some(part) = tasks.join_next().await {
        for (id, message) in part.expect("list task") {
            assert!(
                listed.insert(id.clone(), message).is_none(),
                "{id} listed twice"
            );
        }
    }
    listed
}

/// The entries after `cursor` up to `end` (inclusive), or to the last page.
async fn list_part(
    base: &str,
    token: &str,
    mut cursor: Option<String>,
    end: Option<String>,
) -> Vec<(String, Value)> {
    let client = client();
    let mut listed = Vec::new();
    let mut last: Option<String> = None;
    loop {
        let mut request = client
            .get(format!("{base}/v2/workflows/dlq"))
            .bearer_auth(token)
            .query(&[("count", "100")]);
        if let Some(cursor) = &cursor {
            request = request.query(&[("cursor", cursor)]);
        }
        let (status, page) = send_json(request).await;
        assert_eq!(status, 200, "list: {page}");
        for message in page["messages"].as_array().expect("messages") {
            let id = id_of(message).to_owned();
            assert!(
                last.as_ref().is_none_or(|last| *last < id),
                "ids ascend without repeats: {last:?} then {id}"
            );
            if end.as_ref().is_some_and(|end| id > *end) {
                return listed;
            }
            last = Some(id.clone());
            listed.push((id, message.clone()));
        }
        match page["cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return listed,
        }
    }
}

/// The listed shape of an entry equals what was sent.
fn assert_listed_whole(sent: &Value, listed: &Value) {
    let id = id_of(sent);
    for (key, value) in sent.as_object().expect("object") {
        if NOT_LISTED.contains(&key.as_str()) {
            continue;
        }
        assert_eq!(&listed[key], value, "{id}: listed `{key}` differs");
    }
    assert_eq!(
        listed["failureFunctionState"], sent["failureCallbackInfo"]["state"],
        "{id}: listed failureFunctionState differs"
    );
}

/// GETs each id: `Some(body)` on 200, `None` on 404 (anything else fails).
async fn get_all(base: &str, token: &str, ids: Vec<String>) -> BTreeMap<String, Option<Value>> {
    let mut tasks = tokio::task::JoinSet::new();
    let chunk = ids.len().div_ceil(4).max(1);
    for ids in ids.chunks(chunk) {
        let (base, token, ids) = (base.to_owned(), token.to_owned(), ids.to_vec());
        tasks.spawn(async move {
            let client = client();
            let mut found = Vec::new();
            for id in ids {
                let (status, body) = send_json(
                    client
                        .get(format!("{base}/v2/workflows/dlq/{id}"))
                        .bearer_auth(&token),
                )
                .await;
                match status {
                    200 => found.push((id, Some(body))),
                    404 => found.push((id, None)),
                    _ => panic!("GET {id}: {status} {body}"),
                }
            }
            found
        });
    }
    let mut all = BTreeMap::new();
    while let Some(found) = tasks.join_next().await {
        all.extend(found.expect("get task"));
    }
    all
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
            // Ends early if the loop stops (its failures are reported below).
            let reached = acknowledged_pages.wait_for(|&acknowledged| acknowledged >= pages);
            let _ = tokio::time::timeout(Duration::from_secs(30), reached)
                .await
                .expect("the bulk delete acknowledges pages within 30 s");
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
    }

    let server = Server::start(data.path()).await;
    let listed = list_all(server.base(), &token).await;

    // Credentials: the live token (the rotated one, if rotated) and the management key work;
    // a token replaced before the crash stays replaced.
    let client = client();
    if scenario.rotate {
        let (status, body) = send_json(
            client
                .get(format!("{}/v2/workflows/dlq?count=1", server.base()))
                .bearer_auth(SERVICE_TOKEN),
        )
        .await;
        assert_eq!(status, 401, "the token replaced before the crash: {body}");
    }
    let (status, stats) = send_json(
        client
            .get(format!("{}/v2/svc/stats", server.base()))
            .basic_auth(CUSTOMER_ID, Some(MANAGEMENT_KEY)),
    )
    .await;
    assert_eq!(status, 200, "the management key after restart: {stats}");
    assert_eq!(
        stats["dlq_message_count"].as_u64(),
        Some(listed.len() as u64),
        "dlq_message_count equals the listed total"
    );
    let (status, body) = send_json(
        client
            .get(format!("{}/v2/svc/stats", server.base()))
            .basic_auth(CUSTOMER_ID, Some("not-the-key")),
    )
    .await;
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

/// The foreign-key check can see a violation, so its zero in the crash test means something.
#[test]
fn foreign_key_violations_are_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("courier.sqlite3");
    let store = SqliteStore::open(&path).expect("open");
    assert_eq!(store.foreign_key_violations().expect("check"), 0);
    let raw = rusqlite::Connection::open(&path).expect("raw");
    raw.execute_batch(
        "PRAGMA foreign_keys = OFF; INSERT INTO dlq_labels (label, dlq_id) VALUES ('x', 'gone');",
    )
    .expect("orphan label");
    drop(raw);
    assert_eq!(store.foreign_key_violations().expect("check"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_bulk_delete_and_inserts_loses_or_tears_nothing() {
    let created_at = now_ms() - 60_000;
    let filled = tempfile::tempdir().expect("tempdir");
    let base: Vec<Value> = (0..BASE_ENTRIES)
        .map(|n| entry(&base_id(n), n, created_at))
        .collect();
    fill(filled.path(), &base).await;
    let scenarios = [
        Scenario {
            kill: KillPoint::After(Duration::ZERO),
            rotate: false,
        },
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
    ];
    for (number, scenario) in scenarios.iter().enumerate() {
        crash_and_check(number, scenario, filled.path(), &base, created_at).await;
    }
}
