//! The store's semantics, call by call, on real SQLite files: ids, filters, keyset pagination
//! under concurrent change, deletes, cancel, retention, eviction, durability across reopen and
//! usage counters. Each expectation is computed independently of the SQL (a Rust predicate over
//! what was inserted), so a wrong query fails here rather than in an HTTP test.

use courier_models::{
    FailedWorkflowRun, FailureCallbackInfo, FailureFunctionState, HeaderMap, IndexRegion,
    IndexType, SearchIndex, UrlGroupEndpoint,
};
use courier_service::account::default_account;
use courier_service::store::{ActiveRun, DlqFilter, SqliteStore, Store, StoreError};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Far above anything a test inserts, so nothing is evicted unless a test asks for it.
const NO_LIMIT: u64 = 1_000_000;

struct Fixture {
    // Kept so the directory outlives the store.
    _dir: tempfile::TempDir,
    path: PathBuf,
    store: SqliteStore,
}

impl Fixture {
    /// Inserts `entries` with no size limit; the ids they were stored under.
    fn insert(&self, entries: &[FailedWorkflowRun]) -> Vec<String> {
        self.store
            .insert_dlq(entries, NO_LIMIT)
            .expect("insert")
            .dlq_ids
    }
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    // A directory that does not exist yet: open must create it.
    let path = dir.path().join("nested").join("courier.sqlite3");
    let store = SqliteStore::open(&path).expect("open");
    Fixture {
        _dir: dir,
        path,
        store,
    }
}

fn headers(pairs: &[(&str, &[&str])]) -> HeaderMap {
    HeaderMap(
        pairs
            .iter()
            .map(|(k, vs)| {
                (
                    (*k).to_owned(),
                    vs.iter().map(|v| (*v).to_owned()).collect(),
                )
            })
            .collect(),
    )
}

/// An entry with only the required fields set.
fn entry(dlq_id: &str, created_at: i64, run: &str) -> FailedWorkflowRun {
    FailedWorkflowRun {
        body: None,
        body_base64: None,
        caller_ip: None,
        created_at,
        dlq_id: dlq_id.to_owned(),
        failure_callback: None,
        failure_callback_header: None,
        failure_callback_info: None,
        flow_control_key: None,
        header: headers(&[]),
        label: None,
        labels: Vec::new(),
        max_retries: 3,
        message_id: format!("msg_{dlq_id}_{created_at}"),
        method: "POST".into(),
        not_before: None,
        response_body: None,
        response_body_base64: None,
        response_header: None,
        response_status: None,
        url: "https://example.com/step".into(),
        workflow_created_at: created_at - 1000,
        workflow_run_id: run.to_owned(),
        workflow_url: "https://example.com/wf".into(),
    }
}

fn ids(entries: &[FailedWorkflowRun]) -> Vec<String> {
    entries.iter().map(|e| e.dlq_id.clone()).collect()
}

/// Every page of a scan, checking each page's shape on the way.
fn list_all(store: &SqliteStore, filter: &DlqFilter, page: usize, min: i64) -> Vec<String> {
    let mut all = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let got = store
            .list_dlq(filter, after.as_deref(), page, min)
            .expect("list");
        assert!(got.entries.len() <= page, "a page holds at most `limit`");
        if let Some(next) = &got.next_after {
            assert_eq!(got.entries.len(), page, "a page before the last is full");
            assert_eq!(Some(next), got.entries.last().map(|e| &e.dlq_id));
        }
        all.extend(ids(&got.entries));
        match got.next_after {
            Some(next) => after = Some(next),
            None => return all,
        }
    }
}

fn assert_strictly_ascending(ids: &[String]) {
    for pair in ids.windows(2) {
        assert!(pair[0] < pair[1], "not strictly ascending: {pair:?}");
    }
}

#[test]
fn a_fully_populated_entry_reads_back_field_for_field() {
    let f = fixture();
    let full = FailedWorkflowRun {
        body: Some(r#"{"order":1,"note":"crème brûlée ×2"}"#.into()),
        body_base64: Some("//4AgA==".into()),
        caller_ip: Some("2001:db8::1".into()),
        created_at: 1_752_829_295_505,
        dlq_id: "1752829295505-0".into(),
        failure_callback: Some("https://example.com/failure".into()),
        failure_callback_header: Some(headers(&[("Upstash-Callback", &["failure", "x"])])),
        failure_callback_info: Some(FailureCallbackInfo {
            response_body: Some("callback said no".into()),
            response_headers: Some(headers(&[("Content-Type", &["text/plain"])])),
            response_status: Some(502),
            state: FailureFunctionState::CallbackFail,
        }),
        flow_control_key: Some("tenant-acme".into()),
        header: headers(&[
            ("Content-Type", &["application/json"]),
            ("X-Many", &["a", "b", "c"]),
        ]),
        label: Some("legacy".into()),
        labels: vec!["billing".into(), "priority".into()],
        max_retries: 5,
        message_id: "msg_0123456789abcdef".into(),
        method: "PUT".into(),
        not_before: Some(1_752_829_290_000),
        response_body: Some("upstream error".into()),
        response_body_base64: Some("gICA".into()),
        response_header: Some(headers(&[("Retry-After", &["30"])])),
        response_status: Some(503),
        url: "https://example.com/wf/steps/charge".into(),
        workflow_created_at: 1_752_829_200_000,
        workflow_run_id: "wfr_full".into(),
        workflow_url: "https://example.com/wf".into(),
    };
    let stored = f
        .store
        .insert_dlq(std::slice::from_ref(&full), NO_LIMIT)
        .expect("insert")
        .dlq_ids;
    assert_eq!(stored, vec![full.dlq_id.clone()]);
    assert_eq!(
        f.store.get_dlq(&full.dlq_id, 0).expect("get"),
        Some(full.clone())
    );
    let page = f
        .store
        .list_dlq(&DlqFilter::default(), None, 10, 0)
        .expect("list");
    assert_eq!(page.entries, vec![full.clone()]);
    assert_eq!(page.next_after, None);
    assert_eq!(f.store.get_dlq("1752829295505-1", 0).expect("get"), None);
}

#[test]
fn generated_ids_are_unique_carry_created_at_and_order_by_it() {
    let f = fixture();
    let base = 1_752_829_295_505;
    // Several entries share a millisecond; one explicit id is mixed in.
    let batch: Vec<_> = (0..30)
        .map(|i| {
            let id = if i == 7 { "explicit-7" } else { "" };
            entry(id, base + (i / 4) as i64, "wfr_ids")
        })
        .collect();
    let first = f.insert(&batch);
    let second = f.insert(&batch[..5]);
    assert_eq!(first.len(), 30);
    assert_eq!(first[7], "explicit-7", "an explicit id is kept");
    let generated: Vec<(&String, i64)> = first
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 7)
        .map(|(i, id)| (id, batch[i].created_at))
        .chain(second.iter().zip(batch[..5].iter().map(|e| e.created_at)))
        .collect();
    let mut seen = BTreeSet::new();
    for (id, created_at) in &generated {
        let (ms, seq) = id.split_once('-').expect("`<createdAt>-<seq>`");
        assert_eq!(ms.parse::<i64>().expect("ms"), *created_at, "{id}");
        seq.parse::<u64>().expect("numeric sequence");
        assert!(seen.insert(id.to_string()), "duplicate id {id}");
    }
    // In dlqId order, createdAt never goes backwards (13-digit millisecond prefixes).
    let listed = list_all(&f.store, &DlqFilter::default(), 1000, 0);
    let created: BTreeMap<String, i64> = generated
        .iter()
        .map(|(id, c)| ((*id).clone(), *c))
        .collect();
    let in_order: Vec<i64> = listed
        .iter()
        .filter_map(|id| created.get(id))
        .copied()
        .collect();
    assert_eq!(in_order.len(), generated.len());
    assert!(in_order.windows(2).all(|w| w[0] <= w[1]), "{in_order:?}");
    // Every stored entry carries the id it was given.
    for id in &first {
        assert_eq!(
            f.store.get_dlq(id, 0).expect("get").map(|e| e.dlq_id),
            Some(id.clone())
        );
    }
}

#[test]
fn a_duplicate_dlq_id_is_invalid_names_it_and_stores_nothing() {
    let f = fixture();
    f.insert(&[entry("dup-1", 1000, "wfr_a")]);
    // A duplicate of a stored id, after a valid entry of a new run.
    let error = f
        .store
        .insert_dlq(
            &[entry("", 2000, "wfr_b"), entry("dup-1", 3000, "wfr_b")],
            NO_LIMIT,
        )
        .expect_err("duplicate");
    match &error {
        StoreError::Invalid(message) => assert!(message.contains("dup-1"), "{message}"),
        other => panic!("expected Invalid, got {other:?}"),
    }
    // A duplicate inside one batch.
    let error = f
        .store
        .insert_dlq(
            &[entry("twice", 2000, "wfr_c"), entry("twice", 2001, "wfr_c")],
            NO_LIMIT,
        )
        .expect_err("duplicate within a batch");
    assert!(
        matches!(&error, StoreError::Invalid(m) if m.contains("twice")),
        "{error:?}"
    );
    assert_eq!(f.store.dlq_count(0).expect("count"), 1);
    assert_eq!(list_all(&f.store, &DlqFilter::default(), 10, 0), ["dup-1"]);
    // The runs of the refused batches were not registered either.
    assert!(!f.store.cancel_run("wfr_b", 0).expect("cancel"));
    assert!(!f.store.cancel_run("wfr_c", 0).expect("cancel"));
}

/// 240 entries whose attributes cycle through small sets, so every filter value matches some
/// entries and most combinations match a few.
fn varied_entries() -> Vec<FailedWorkflowRun> {
    let urls = [
        "https://a.example/wf",
        "https://b.example/wf",
        "https://c.example/wf",
    ];
    let ips = ["192.0.2.1", "192.0.2.2", "2001:db8::1"];
    let keys = ["tenant-a", "tenant-b"];
    let states = [
        FailureFunctionState::CallbackInprogress,
        FailureFunctionState::CallbackSuccess,
        FailureFunctionState::CallbackFail,
        FailureFunctionState::CallbackCanceled,
    ];
    let labels = ["red", "green", "blue", "gold"];
    (0..240)
        .map(|i| {
            let mut e = entry(&format!("v{i:04}"), 10_000 + (i as i64) * 10, "");
            e.workflow_run_id = format!("wfr_{}", i % 40);
            e.workflow_created_at = 5_000 + (i % 6) as i64;
            e.workflow_url = urls[i % 3].into();
            e.caller_ip = (i % 5 != 0).then(|| ips[i % 3].into());
            e.flow_control_key = (i % 4 != 0).then(|| keys[i % 2].into());
            e.failure_callback_info = (i % 3 != 0).then(|| FailureCallbackInfo {
                response_body: None,
                response_headers: None,
                response_status: Some(500),
                state: states[(i / 3) % 4],
            });
            // Deprecated `label` only, `labels` only, both, or neither.
            match i % 4 {
                0 => e.label = Some(labels[i % 4].into()),
                1 => e.labels = vec![labels[i % 4].into(), labels[(i + 1) % 4].into()],
                2 => {
                    e.label = Some(labels[(i / 4) % 4].into());
                    e.labels = vec![labels[(i + 2) % 4].into()];
                }
                _ => {}
            }
            e
        })
        .collect()
}

/// The filter's meaning, written independently of the SQL.
fn matches(filter: &DlqFilter, e: &FailedWorkflowRun) -> bool {
    let any = |values: &[String], value: Option<&String>| {
        values.is_empty() || value.is_some_and(|v| values.contains(v))
    };
    filter.from_date.is_none_or(|from| e.created_at >= from)
        && filter.to_date.is_none_or(|to| e.created_at <= to)
        && any(&filter.workflow_url, Some(&e.workflow_url))
        && filter
            .workflow_run_id
            .as_ref()
            .is_none_or(|r| *r == e.workflow_run_id)
        && filter
            .workflow_created_at
            .is_none_or(|c| c == e.workflow_created_at)
        && (filter.label.is_empty()
            || e.labels
                .iter()
                .chain(&e.label)
                .any(|l| filter.label.contains(l)))
        && (filter.failure_function_state.is_empty()
            || e.failure_callback_info
                .as_ref()
                .is_some_and(|i| filter.failure_function_state.contains(&i.state)))
        && any(&filter.caller_ip, e.caller_ip.as_ref())
        && any(&filter.flow_control_key, e.flow_control_key.as_ref())
}

fn filters() -> Vec<(&'static str, DlqFilter)> {
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    let none = DlqFilter::default();
    vec![
        ("none", none.clone()),
        // Both bounds are exact createdAt values: inclusive on both ends.
        (
            "date range",
            DlqFilter {
                from_date: Some(10_500),
                to_date: Some(11_000),
                ..none.clone()
            },
        ),
        (
            "from only",
            DlqFilter {
                from_date: Some(12_300),
                ..none.clone()
            },
        ),
        (
            "to only",
            DlqFilter {
                to_date: Some(10_000),
                ..none.clone()
            },
        ),
        (
            "one url",
            DlqFilter {
                workflow_url: s(&["https://b.example/wf"]),
                ..none.clone()
            },
        ),
        (
            "two urls",
            DlqFilter {
                workflow_url: s(&["https://a.example/wf", "https://c.example/wf"]),
                ..none.clone()
            },
        ),
        (
            "run id",
            DlqFilter {
                workflow_run_id: Some("wfr_7".into()),
                ..none.clone()
            },
        ),
        (
            "run created at",
            DlqFilter {
                workflow_created_at: Some(5_003),
                ..none.clone()
            },
        ),
        (
            "one label",
            DlqFilter {
                label: s(&["red"]),
                ..none.clone()
            },
        ),
        (
            "two labels",
            DlqFilter {
                label: s(&["green", "gold"]),
                ..none.clone()
            },
        ),
        (
            "unknown label",
            DlqFilter {
                label: s(&["mauve"]),
                ..none.clone()
            },
        ),
        (
            "one state",
            DlqFilter {
                failure_function_state: vec![FailureFunctionState::CallbackFail],
                ..none.clone()
            },
        ),
        (
            "two states",
            DlqFilter {
                failure_function_state: vec![
                    FailureFunctionState::CallbackSuccess,
                    FailureFunctionState::CallbackCanceled,
                ],
                ..none.clone()
            },
        ),
        (
            "caller ips",
            DlqFilter {
                caller_ip: s(&["192.0.2.1", "2001:db8::1"]),
                ..none.clone()
            },
        ),
        (
            "flow key",
            DlqFilter {
                flow_control_key: s(&["tenant-b"]),
                ..none.clone()
            },
        ),
        (
            "everything at once",
            DlqFilter {
                from_date: Some(10_100),
                to_date: Some(12_200),
                workflow_url: s(&["https://a.example/wf", "https://b.example/wf"]),
                label: s(&["red", "blue"]),
                failure_function_state: vec![
                    FailureFunctionState::CallbackInprogress,
                    FailureFunctionState::CallbackFail,
                    FailureFunctionState::CallbackSuccess,
                ],
                caller_ip: s(&["192.0.2.1", "192.0.2.2"]),
                flow_control_key: s(&["tenant-a", "tenant-b"]),
                ..none.clone()
            },
        ),
        (
            "labels and run id",
            DlqFilter {
                workflow_run_id: Some("wfr_1".into()),
                label: s(&["red", "green"]),
                ..none.clone()
            },
        ),
        (
            "labels and date and key",
            DlqFilter {
                from_date: Some(10_400),
                label: s(&["gold", "blue", "red"]),
                flow_control_key: s(&["tenant-a"]),
                ..none.clone()
            },
        ),
        (
            "state and run created at",
            DlqFilter {
                workflow_created_at: Some(5_002),
                failure_function_state: vec![FailureFunctionState::CallbackFail],
                ..none.clone()
            },
        ),
    ]
}

#[test]
fn every_filter_alone_and_combined_matches_its_definition() {
    let f = fixture();
    let entries = varied_entries();
    f.insert(&entries);
    for (name, filter) in filters() {
        let expected: Vec<String> = entries
            .iter()
            .filter(|e| matches(&filter, e))
            .map(|e| e.dlq_id.clone())
            .collect();
        if !name.starts_with("unknown") {
            assert!(
                !expected.is_empty(),
                "{name}: the fixture must match something"
            );
        }
        if name != "none" {
            assert!(
                expected.len() < entries.len(),
                "{name}: the filter must exclude"
            );
        }
        // One page, and small pages (which exercise the cursor on every filter path).
        let page = f.store.list_dlq(&filter, None, 1000, 0).expect("list");
        assert_eq!(ids(&page.entries), expected, "{name}");
        assert_eq!(
            list_all(&f.store, &filter, 7, 0),
            expected,
            "{name}, pages of 7"
        );
    }
    // The inclusive bounds really are hit by the date filter.
    let range = f
        .store
        .list_dlq(
            &DlqFilter {
                from_date: Some(10_500),
                to_date: Some(11_000),
                ..DlqFilter::default()
            },
            None,
            1000,
            0,
        )
        .expect("list");
    assert_eq!(range.entries.first().map(|e| e.created_at), Some(10_500));
    assert_eq!(range.entries.last().map(|e| e.created_at), Some(11_000));
}

#[test]
fn delete_matching_deletes_exactly_what_the_filter_matches() {
    for (name, filter) in filters() {
        let f = fixture();
        let entries = varied_entries();
        f.insert(&entries);
        let expected: BTreeSet<String> = entries
            .iter()
            .filter(|e| matches(&filter, e))
            .map(|e| e.dlq_id.clone())
            .collect();
        let mut deleted = 0;
        let mut after: Option<String> = None;
        loop {
            let (count, next) = f
                .store
                .delete_dlq_matching(&filter, after.as_deref(), 9, 0)
                .expect("delete");
            deleted += count;
            match next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        assert_eq!(deleted as usize, expected.len(), "{name}");
        let left: BTreeSet<String> = list_all(&f.store, &DlqFilter::default(), 1000, 0)
            .into_iter()
            .collect();
        let all: BTreeSet<String> = ids(&entries).into_iter().collect();
        assert_eq!(left, all.difference(&expected).cloned().collect(), "{name}");
    }
}

#[test]
fn keyset_pagination_returns_every_entry_once_in_order() {
    let f = fixture();
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
    let mut pages = 0;
    let mut listed = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = f
            .store
            .list_dlq(&DlqFilter::default(), after.as_deref(), 100, 0)
            .expect("list");
        pages += 1;
        listed.extend(ids(&page.entries));
        match page.next_after {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(pages, 11);
    assert_eq!(listed.len(), 1050);
    assert_strictly_ascending(&listed);
    assert_eq!(listed.into_iter().collect::<BTreeSet<_>>(), inserted);

    // When the last page is exactly full, it still says there is no more.
    f.store
        .delete_dlq_ids(&inserted.iter().take(50).cloned().collect::<Vec<_>>(), 0)
        .expect("delete");
    let mut after: Option<String> = None;
    let mut pages = 0;
    loop {
        let page = f
            .store
            .list_dlq(&DlqFilter::default(), after.as_deref(), 100, 0)
            .expect("list");
        pages += 1;
        assert_eq!(page.entries.len(), 100);
        match page.next_after {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(pages, 10, "no empty trailing page");
}

#[test]
fn pagination_between_inserts_and_deletes_never_repeats_or_skips_stable_entries() {
    let f = fixture();
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
            .list_dlq(&DlqFilter::default(), after.as_deref(), 50, 0)
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

#[test]
fn pagination_alongside_a_writer_thread_never_repeats_or_skips_stable_entries() {
    let f = fixture();
    let store = Arc::new(f.store);
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
        let listed = list_all(&store, &DlqFilter::default(), 37, 0);
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
    let f = fixture();
    f.insert(&[entry("committed", 1000, "wfr_r")]);
    // Another connection holds the write lock with an uncommitted row.
    let mut other = rusqlite::Connection::open(&f.path).expect("raw");
    let transaction = other
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .expect("begin");
    transaction
        .execute("DELETE FROM dlq WHERE dlq_id = 'committed'", [])
        .expect("uncommitted delete");
    let started = Instant::now();
    let page = f
        .store
        .list_dlq(&DlqFilter::default(), None, 10, 0)
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

#[test]
fn delete_by_ids_skips_unknown_and_repeated_ids() {
    let f = fixture();
    f.insert(&[
        entry("a", 1, "wfr_d"),
        entry("b", 2, "wfr_d"),
        entry("c", 3, "wfr_d"),
    ]);
    let deleted = f
        .store
        .delete_dlq_ids(&["a".into(), "zzz".into(), "a".into(), "c".into()], 0)
        .expect("delete");
    assert_eq!(deleted, 2);
    assert_eq!(list_all(&f.store, &DlqFilter::default(), 10, 0), ["b"]);
    assert_eq!(f.store.delete_dlq_ids(&[], 0).expect("delete"), 0);
    assert!(f.store.delete_dlq_one("b", 0).expect("delete"));
    assert!(!f.store.delete_dlq_one("b", 0).expect("delete again"));
    assert_eq!(f.store.dlq_count(0).expect("count"), 0);
}

#[test]
fn delete_matching_in_batches_reports_a_cursor_until_done() {
    let f = fixture();
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
    let mut counts = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let (count, next) = f
            .store
            .delete_dlq_matching(&filter, after.as_deref(), 100, 0)
            .expect("delete");
        counts.push(count);
        if let Some(next) = &next {
            assert!(
                f.store.get_dlq(next, 0).expect("get").is_none(),
                "the cursor is the last deleted id"
            );
        }
        match next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(counts, [100, 100, 50]);
    assert_eq!(f.store.dlq_count(0).expect("count"), 150);
    assert!(
        f.store
            .list_dlq(&filter, None, 10, 0)
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
        .delete_dlq_matching(&filter, None, 150, 0)
        .expect("delete");
    assert_eq!((count, next), (150, None));
    assert_eq!(f.store.dlq_count(0).expect("count"), 0);
}

#[test]
fn cancel_removes_the_run_and_all_its_entries_once() {
    let f = fixture();
    f.insert(&[
        entry("a1", 1, "wfr_a"),
        entry("a2", 2, "wfr_a"),
        entry("a3", 3, "wfr_a"),
        entry("b1", 4, "wfr_b"),
        entry("b2", 5, "wfr_b"),
    ]);
    assert!(f.store.cancel_run("wfr_a", 0).expect("cancel"));
    assert_eq!(
        list_all(&f.store, &DlqFilter::default(), 10, 0),
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

#[test]
fn retention_hides_old_entries_and_purge_removes_them() {
    let f = fixture();
    f.insert(&[
        entry("old", 1_000, "wfr_r"),
        entry("edge", 2_000, "wfr_r"),
        entry("new", 3_000, "wfr_r"),
    ]);
    let min = 2_000;
    assert_eq!(f.store.get_dlq("old", min).expect("get"), None);
    assert!(f.store.get_dlq("edge", min).expect("get").is_some());
    assert_eq!(
        list_all(&f.store, &DlqFilter::default(), 10, min),
        ["edge", "new"]
    );
    assert_eq!(
        list_all(
            &f.store,
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
    // A bulk delete does not count entries that are already gone.
    let (deleted, _) = f
        .store
        .delete_dlq_matching(&DlqFilter::default(), None, 100, 3_000)
        .expect("delete");
    assert_eq!(deleted, 1);
    assert_eq!(f.store.purge_expired(min).expect("purge"), 1);
    assert_eq!(f.store.dlq_count(0).expect("count"), 1);
    assert_eq!(f.store.get_dlq("old", 0).expect("get"), None);
}

#[test]
fn a_full_dlq_evicts_its_oldest_entries() {
    let f = fixture();
    f.store
        .insert_dlq(
            &[
                entry("c", 100, "wfr_e"),
                entry("a", 300, "wfr_e"),
                entry("b", 100, "wfr_e"),
            ],
            5,
        )
        .expect("insert");
    assert_eq!(f.store.dlq_count(0).expect("count"), 3);
    f.store
        .insert_dlq(
            &[
                entry("d", 400, "wfr_e"),
                entry("e", 50, "wfr_e"),
                entry("f", 500, "wfr_e"),
            ],
            5,
        )
        .expect("insert");
    // Six entries, room for five: the oldest (`e`, at 50) goes.
    assert_eq!(
        list_all(&f.store, &DlqFilter::default(), 10, 0),
        ["a", "b", "c", "d", "f"]
    );
    // Two more: the two at 100 go, the tie broken by dlqId (`b` before `c`).
    f.store
        .insert_dlq(&[entry("g", 600, "wfr_e")], 5)
        .expect("insert");
    assert_eq!(
        list_all(&f.store, &DlqFilter::default(), 10, 0),
        ["a", "c", "d", "f", "g"]
    );
    f.store
        .insert_dlq(&[entry("h", 700, "wfr_e")], 5)
        .expect("insert");
    assert_eq!(
        list_all(&f.store, &DlqFilter::default(), 10, 0),
        ["a", "d", "f", "g", "h"]
    );
    // A batch larger than the limit keeps only its newest entries.
    let batch: Vec<_> = (0..8)
        .map(|i| entry(&format!("z{i}"), 1000 + i, "wfr_e"))
        .collect();
    f.store.insert_dlq(&batch, 3).expect("insert");
    assert_eq!(
        list_all(&f.store, &DlqFilter::default(), 10, 0),
        ["z5", "z6", "z7"]
    );
}

#[test]
fn everything_survives_closing_and_reopening() {
    let f = fixture();
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
    let path = f.path.clone();
    drop(f.store);

    let store = SqliteStore::open(&path).expect("reopen");
    let reopened = store.account().expect("account").expect("an account");
    assert_eq!(reopened, rotated);
    assert_eq!(
        store.management_key().expect("key").as_deref(),
        Some("mgmt-key")
    );
    assert_eq!(
        list_all(&store, &DlqFilter::default(), 100, 0),
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
    let before: BTreeSet<String> = list_all(&store, &DlqFilter::default(), 1000, 0)
        .into_iter()
        .collect();
    let first = store
        .insert_dlq(&[entry("", 9_000, "wfr_x")], NO_LIMIT)
        .expect("insert");
    drop(store);
    let store = SqliteStore::open(&path).expect("reopen");
    let second = store
        .insert_dlq(&[entry("", 9_000, "wfr_x")], NO_LIMIT)
        .expect("insert after reopen");
    assert_ne!(first, second);
    assert!(!before.contains(&second.dlq_ids[0]));
    assert_eq!(store.integrity_check().expect("check"), "ok");
}

#[test]
fn rotation_without_an_account_is_refused() {
    let f = fixture();
    assert!(matches!(
        f.store.rotate_credentials("t", "p"),
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(f.store.account().expect("account"), None);
}

fn search_index() -> SearchIndex {
    SearchIndex {
        creation_time: 1_700_000_000,
        customer_id: "team@example.com".into(),
        endpoint: "https://index.example.com".into(),
        hosting_email: String::new(),
        id: uuid::Uuid::new_v4(),
        input_enrichment_enabled: true,
        max_daily_queries: -1,
        max_daily_updates: 1000,
        max_monthly_bandwidth: -1,
        max_monthly_reranks: 0,
        max_query_per_second: 100,
        max_reads_per_request: 1000,
        max_vector_count: 10_000,
        max_writes_per_request: 1000,
        max_writes_per_second: 100,
        name: "products".into(),
        read_only_token: "ro-token".into(),
        region: IndexRegion::EuWest1,
        throughput_vector: Vec::new(),
        token: "index-token".into(),
        type_: IndexType::Payg,
    }
}

#[test]
fn url_groups_keep_created_at_and_indexes_read_back() {
    let f = fixture();
    assert_eq!(f.store.url_group("orders").expect("group"), None);
    let one = [UrlGroupEndpoint {
        name: String::new(),
        url: "https://example.com/a".into(),
    }];
    let created = f.store.put_url_group("orders", &one, 1_000).expect("put");
    assert_eq!((created.created_at, created.updated_at), (1_000, 1_000));
    let two = [
        one[0].clone(),
        UrlGroupEndpoint {
            name: "b".into(),
            url: "https://example.com/b".into(),
        },
    ];
    let updated = f.store.put_url_group("orders", &two, 5_000).expect("put");
    assert_eq!((updated.created_at, updated.updated_at), (1_000, 5_000));
    assert_eq!(updated.endpoints, two);
    assert_eq!(f.store.url_group("orders").expect("group"), Some(updated));

    let index = search_index();
    assert_eq!(f.store.index(&index.id.to_string()).expect("index"), None);
    f.store.put_index(&index).expect("put");
    assert_eq!(
        f.store.index(&index.id.to_string()).expect("index"),
        Some(index.clone())
    );
    assert_eq!(
        f.store
            .index(&index.id.to_string().to_ascii_uppercase())
            .expect("index"),
        Some(index.clone()),
        "UUID hex case does not matter"
    );
    let mut renamed = index.clone();
    renamed.name = "renamed".into();
    f.store.put_index(&renamed).expect("replace");
    assert_eq!(
        f.store.index(&index.id.to_string()).expect("index"),
        Some(renamed)
    );
}

#[test]
fn usage_counters_add_up_per_metric_and_minute() {
    let f = fixture();
    let m = |metric: &str, minute: i64, value: f64| (metric.to_owned(), minute, value);
    f.store
        .add_usage_batch(&[
            m("delivered", 60_000, 1.0),
            m("delivered", 60_000, 2.5),
            m("delivered", 120_000, 1.0),
            m("failed", 60_000, 7.0),
        ])
        .expect("usage");
    f.store
        .add_usage_batch(&[m("delivered", 60_000, 0.5), m("delivered", 240_000, 4.0)])
        .expect("usage");
    assert_eq!(
        f.store
            .usage_between("delivered", 0, i64::MAX)
            .expect("usage"),
        [(60_000, 4.0), (120_000, 1.0), (240_000, 4.0)]
    );
    // Both bounds inclusive.
    assert_eq!(
        f.store
            .usage_between("delivered", 120_000, 240_000)
            .expect("usage"),
        [(120_000, 1.0), (240_000, 4.0)]
    );
    assert_eq!(
        f.store.usage_between("failed", 0, i64::MAX).expect("usage"),
        [(60_000, 7.0)]
    );
    assert!(
        f.store
            .usage_between("unknown", 0, i64::MAX)
            .expect("usage")
            .is_empty()
    );
}
