//! The verifier never lies about courier: against the real service, seeded with generated data
//! (ids of every shape, all-digit ones included; unicode and binary bodies; empty, one, a page
//! and one more than a page of entries; values shared and not shared by each filter), every
//! scenario that reads finds nothing wrong, and with writing on on top of that data, nothing at
//! all. The fuzz target holds the verifier to never panicking; this holds it to never calling a
//! valid answer a violation.
//!
//! Cases: `COURIER_VERIFY_PROPERTY_CASES` (default 24, 6.5 s measured on 2 cores; CI runs 256).

use courier_service::testing::TestService;
use courier_verify::{Outcome, Verifier};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// One generated entry: an id and its fields, each from a small pool so that filters have
/// values shared by some entries and not others.
fn entry() -> impl Strategy<Value = (String, Value)> {
    let id = prop_oneof!["[0-9]{1,4}", "[a-z0-9_-]{1,12}", "[A-Za-zé✓ü0-9.:]{1,8}",];
    let state = prop_oneof![
        Just(None),
        Just(Some("CALLBACK_INPROGRESS")),
        Just(Some("CALLBACK_SUCCESS")),
        Just(Some("CALLBACK_FAIL")),
        Just(Some("CALLBACK_CANCELED")),
    ];
    let body = prop_oneof![
        Just(json!({"body": "{\"plain\":true}"})),
        Just(json!({"body": "ünïcode ✓ — text"})),
        Just(json!({"bodyBase64": "//4AAQ=="})),
        Just(json!({})),
    ];
    (
        id,
        (0..3usize, 0..3usize, 0..4i64, 0..6i64),
        proptest::collection::btree_set(
            prop_oneof![Just("a"), Just("b"), Just("c,d"), Just("ü")],
            0..3,
        ),
        (
            proptest::option::of(prop_oneof![Just("legacy"), Just("a")]),
            state,
            body,
        ),
        (proptest::option::of(0..2u8), proptest::option::of(0..2u8)),
    )
        .prop_map(
            |(id, (run, url, created, at), labels, (label, state, body), (ip, key))| {
                let mut entry = json!({
                    "dlqId": id,
                    "workflowRunId": format!("wfr_{run}"),
                    "workflowUrl": format!("https://w.example/{url}"),
                    "workflowCreatedAt": 1_700_000_000_000_i64 + created,
                    "createdAt": now_ms() - 60_000 + at,
                    "url": "https://w.example/step",
                    "method": "POST",
                    "maxRetries": 2,
                    "labels": labels.into_iter().collect::<Vec<_>>(),
                });
                if let Some(label) = label {
                    entry["label"] = json!(label);
                }
                if let Some(state) = state {
                    entry["failureCallback"] = json!("https://w.example/failure");
                    entry["failureCallbackInfo"] = json!({"state": state});
                }
                if let Some(ip) = ip {
                    entry["callerIP"] = json!(format!("192.0.2.{ip}"));
                }
                if let Some(key) = key {
                    entry["flowControlKey"] = json!(format!("key-{key}"));
                }
                for (name, value) in body.as_object().into_iter().flatten() {
                    entry[name] = value.clone();
                }
                (id_of(&entry), entry)
            },
        )
}

fn id_of(entry: &Value) -> String {
    entry["dlqId"].as_str().unwrap_or_default().to_owned()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Entries with distinct ids: none, one, a few, or around a page of the walks' small pages.
fn entries() -> impl Strategy<Value = Vec<Value>> {
    prop_oneof![
        Just(0usize),
        Just(1usize),
        2..8usize,
        Just(100usize),
        Just(101usize),
    ]
    .prop_flat_map(|count| proptest::collection::vec(entry(), count..=count))
    .prop_map(|generated| {
        let mut seen = BTreeSet::new();
        generated
            .into_iter()
            .filter(|(id, _)| seen.insert(id.clone()))
            .map(|(_, entry)| entry)
            .collect()
    })
}

async fn no_violation(entries: Vec<Value>, write: bool) -> Result<(), TestCaseError> {
    let service = TestService::start().await;
    if !entries.is_empty() {
        service.insert_dlq(&entries).await;
    }
    let mut builder = Verifier::builder(service.base_url())
        .service_token(&service.service_token)
        .management_credentials(&service.customer_id, &service.management_key)
        .allow_inconclusive(true);
    if write {
        builder = builder.admin_token(&service.admin_token).write(true);
    }
    let report = builder.build().expect("a verifier").run().await;
    prop_assert_eq!(
        report.count(Outcome::Failed),
        0,
        "{} entries: {}\n{}",
        entries.len(),
        serde_json::to_string(&entries).unwrap_or_default(),
        report.to_table()
    );
    if write {
        prop_assert_eq!(
            report.count(Outcome::Passed),
            report.scenarios.len(),
            "{}",
            report.to_table()
        );
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("COURIER_VERIFY_PROPERTY_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
}

#[test]
fn the_verifier_finds_nothing_wrong_with_courier_on_any_data() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        // Shrinking restarts a service per step; the failing case is printed whole instead.
        max_shrink_iters: 16,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &(entries(), proptest::bool::weighted(0.25)),
            |(entries, write)| runtime.block_on(no_violation(entries, write)),
        )
        .unwrap_or_else(|failure| panic!("{failure}"));
}
