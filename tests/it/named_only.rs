//! No request destroys what it did not name, and retention holds on every path, against the real
//! service over HTTP (`docs/decisions.md#d12-multi-value-encoding`,
//! `docs/decisions.md#d13-retention-and-dlq-size`, `docs/decisions.md#d16-order-of-checks`).
//!
//! The property test spells `dlqIds` every way a script or a hostile client might (empty values,
//! stray and encoded commas, whitespace, repeated and encoded keys) and checks that the entries a
//! bulk delete removed are always a subset of the ids the query named.

use crate::common;
use courier_service::time::now_ms;

use courier_service::testing::TestService;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::BTreeSet;

const DAY_MS: i64 = 86_400_000;

/// A failed run in the admin API's input shape.
fn entry(dlq_id: &str, run_id: &str, created_at: i64, label: &str) -> Value {
    let mut entry = common::admin_entry(run_id, created_at, label);
    entry["dlqId"] = json!(dlq_id);
    entry
}

struct Http {
    client: reqwest::Client,
    base: String,
    token: String,
}

impl Http {
    fn new(service: &TestService) -> Http {
        Http {
            client: reqwest::Client::new(),
            base: service.base_url(),
            token: service.service_token.clone(),
        }
    }

    async fn call(&self, method: Method, target: &str) -> (u16, Value) {
        common::call_with_token(&self.client, &self.base, &self.token, method, target).await
    }

    /// Every listed dlqId, following the cursor.
    async fn listed(&self) -> BTreeSet<String> {
        let mut ids = BTreeSet::new();
        let mut target = "/v2/workflows/dlq?count=100".to_owned();
        loop {
            let (status, body) = self.call(Method::GET, &target).await;
            assert_eq!(status, 200, "{body}");
            for message in body["messages"].as_array().expect("messages") {
                ids.insert(message["dlqId"].as_str().expect("dlqId").to_owned());
            }
            match body["cursor"].as_str() {
                Some(cursor) => target = format!("/v2/workflows/dlq?count=100&cursor={cursor}"),
                None => return ids,
            }
        }
    }
}

/// One item of a spelled `dlqIds` value: raw text as it goes on the wire, and the id it names
/// when it is exactly an existing id.
#[derive(Clone, Debug)]
enum Item {
    Existing(usize),
    Unknown,
    Empty,
    Space,
    Plus,
    EncodedSpace,
    /// Two existing ids joined by `%2C`: one value with a comma in it, which names neither.
    EncodedCommaPair(usize, usize),
    EncodedComma,
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        6 => (0..POOL).prop_map(Item::Existing),
        1 => Just(Item::Unknown),
        4 => Just(Item::Empty),
        1 => Just(Item::Space),
        1 => Just(Item::Plus),
        1 => Just(Item::EncodedSpace),
        1 => (0..POOL, 0..POOL).prop_map(|(a, b)| Item::EncodedCommaPair(a, b)),
        1 => Just(Item::EncodedComma),
    ]
}

const POOL: usize = 12;

fn pool_id(i: usize) -> String {
    format!("named-{i:02}")
}

/// A whole spelling: one or more `dlqIds` keys (plain or percent-encoded), each with items
/// joined by literal commas, optionally other parameters around them.
#[derive(Clone, Debug)]
struct Spelling {
    keys: Vec<(bool, Vec<Item>)>,
    with_count: bool,
}

fn spelling() -> impl Strategy<Value = Spelling> {
    (
        prop::collection::vec((any::<bool>(), prop::collection::vec(item(), 0..5)), 1..4),
        any::<bool>(),
    )
        .prop_map(|(keys, with_count)| Spelling { keys, with_count })
}

impl Spelling {
    fn query(&self) -> String {
        let mut parts: Vec<String> = self
            .keys
            .iter()
            .map(|(encoded_key, items)| {
                let key = if *encoded_key { "%64lqIds" } else { "dlqIds" };
                let value: Vec<String> = items
                    .iter()
                    .map(|item| match item {
                        Item::Existing(i) => pool_id(*i),
                        Item::Unknown => "never-stored".to_owned(),
                        Item::Empty => String::new(),
                        Item::Space => " ".to_owned(),
                        Item::Plus => "+".to_owned(),
                        Item::EncodedSpace => "%20".to_owned(),
                        Item::EncodedCommaPair(a, b) => {
                            format!("{}%2C{}", pool_id(*a), pool_id(*b))
                        }
                        Item::EncodedComma => "%2C".to_owned(),
                    })
                    .collect();
                format!("{key}={}", value.join(","))
            })
            .collect();
        if self.with_count {
            parts.push("count=1000".to_owned());
        }
        parts.join("&")
    }

    /// The existing ids the query names, each as one whole value.
    fn named(&self) -> BTreeSet<String> {
        self.keys
            .iter()
            .flat_map(|(_, items)| items)
            .filter_map(|item| match item {
                Item::Existing(i) => Some(pool_id(*i)),
                _ => None,
            })
            .collect()
    }

    /// Whether some value is empty (a key with no items is `dlqIds=`, itself empty).
    fn has_empty_value(&self) -> bool {
        self.keys
            .iter()
            .any(|(_, items)| items.is_empty() || items.iter().any(|i| matches!(i, Item::Empty)))
    }
}

#[test]
fn no_spelling_of_dlq_ids_deletes_an_entry_it_did_not_name() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let service = runtime.block_on(TestService::start());
    let http = Http::new(&service);
    let now = now_ms();
    let pool: Vec<Value> = (0..POOL)
        .map(|i| entry(&pool_id(i), &format!("wfr-{i}"), now + i as i64, "pool"))
        .collect();
    // Entries no spelling names: any of them gone means a filter-based delete ran.
    let bystanders: Vec<Value> = (0..30)
        .map(|i| {
            entry(
                &format!("bystander-{i:02}"),
                &format!("wfr-b{i}"),
                now,
                "bystander",
            )
        })
        .collect();
    runtime.block_on(service.insert_dlq(&pool));
    runtime.block_on(service.insert_dlq(&bystanders));
    let everything = runtime.block_on(http.listed());
    assert_eq!(everything.len(), POOL + 30);

    let mut runner = TestRunner::new(Config {
        cases: 160,
        failure_persistence: None,
        ..Config::default()
    });
    let refused = std::cell::Cell::new(0);
    let deleting = std::cell::Cell::new(0);
    runner
        .run(&spelling(), |spelling| {
            let query = spelling.query();
            let (status, body) =
                runtime.block_on(http.call(Method::DELETE, &format!("/v2/workflows/dlq?{query}")));
            let after = runtime.block_on(http.listed());
            let deleted: BTreeSet<String> = everything.difference(&after).cloned().collect();
            let named = spelling.named();
            prop_assert!(
                deleted.is_subset(&named),
                "{query} answered {status} {body} and deleted {deleted:?}, naming only {named:?}"
            );
            if spelling.has_empty_value() {
                prop_assert_eq!(status, 400, "{} answered {}", query, body);
                prop_assert!(common::error_of(&body).contains("dlqIds"), "{}", body);
                refused.set(refused.get() + 1);
            } else {
                prop_assert_eq!(status, 200, "{} answered {}", query, body);
                prop_assert_eq!(
                    body["deleted"].as_u64(),
                    Some(deleted.len() as u64),
                    "{}",
                    query
                );
                prop_assert!(
                    body.get("cursor").is_none(),
                    "no cursor with dlqIds: {}",
                    body
                );
                deleting.set(deleting.get() + usize::from(!deleted.is_empty()));
            }
            // Put back what went, so every case starts from the same DLQ.
            let restore: Vec<Value> = pool
                .iter()
                .filter(|e| deleted.contains(e["dlqId"].as_str().unwrap_or_default()))
                .cloned()
                .collect();
            if !restore.is_empty() {
                runtime.block_on(service.insert_dlq(&restore));
            }
            Ok::<(), TestCaseError>(())
        })
        .unwrap_or_else(|failure| panic!("{failure}"));
    // The strategy reached both sides: refusals and real deletes.
    let (refused, deleting) = (refused.get(), deleting.get());
    assert!(
        refused > 10 && deleting > 10,
        "refused {refused}, deleting {deleting}"
    );
}

#[tokio::test]
async fn a_malformed_cursor_is_refused_even_beside_dlq_ids_and_nothing_is_deleted() {
    let service = TestService::start().await;
    let http = Http::new(&service);
    let now = now_ms();
    service
        .insert_dlq(&[entry("keep-me", "wfr-1", now, "x")])
        .await;
    let (status, body) = http
        .call(
            Method::DELETE,
            "/v2/workflows/dlq?dlqIds=keep-me&cursor=not-a-cursor",
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(common::error_of(&body).contains("cursor"), "{body}");
    assert_eq!(http.listed().await, BTreeSet::from(["keep-me".to_owned()]));
}

/// `docs/decisions.md#d13-retention-and-dlq-size`: with the retention set below an entry's age, the
/// entry is gone on every path before any purge has run.
#[tokio::test]
async fn an_entry_past_retention_is_gone_on_every_path_before_any_purge() {
    let service = TestService::start().await;
    let http = Http::new(&service);
    let now = now_ms();
    let old = now - 3 * DAY_MS;
    service
        .insert_dlq(&[
            entry("old-a", "wfr-only-old", old, "aged"),
            entry("old-b", "wfr-only-old", old + 1, "aged"),
            entry("old-c", "wfr-mixed", old + 2, "aged"),
            entry("old-d", "wfr-other", old + 3, "aged"),
            entry("old-e", "wfr-other", old + 4, "aged"),
            entry("young-a", "wfr-mixed", now, "aged"),
            entry("young-b", "wfr-young", now + 1, "aged"),
            entry("young-c", "wfr-young", now + 2, "aged"),
        ])
        .await;
    service
        .patch_account(json!({ "max_dlq_retention_time_milis": DAY_MS }))
        .await;

    let young: BTreeSet<String> = ["young-a", "young-b", "young-c"].map(String::from).into();
    assert_eq!(http.listed().await, young, "list");
    // In order, each on what the ones before left; a bulk delete also says how many went.
    let steps = [
        ("get one", Method::GET, "/v2/workflows/dlq/old-a", 404, None),
        ("delete one", Method::DELETE, "/v2/dlq/old-a", 404, None),
        (
            "bulk delete by ids",
            Method::DELETE,
            "/v2/workflows/dlq?dlqIds=old-b,young-b",
            200,
            Some(1),
        ),
        (
            "cancel of a run whose only entries are expired",
            Method::DELETE,
            "/v2/workflows/runs/wfr-only-old",
            404,
            None,
        ),
        (
            "cancel of a run with a young entry",
            Method::DELETE,
            "/v2/workflows/runs/wfr-mixed",
            200,
            None,
        ),
    ];
    for (what, method, target, status, deleted) in steps {
        let (answered, body) = http.call(method, target).await;
        assert_eq!(answered, status, "{what}: {body}");
        if deleted.is_some() {
            assert_eq!(body["deleted"].as_u64(), deleted, "{what}: {body}");
        }
    }
    let stats = common::account_stats(&service).await;
    assert_eq!(
        stats["dlq_message_count"], 1,
        "only young-c is left: {}",
        stats["dlq_message_count"]
    );
    let (status, body) = http
        .call(Method::DELETE, "/v2/workflows/dlq?label=aged")
        .await;
    assert_eq!(
        (status, body["deleted"].as_u64()),
        (200, Some(1)),
        "bulk delete by filter: {body}"
    );
    assert!(http.listed().await.is_empty());
}
