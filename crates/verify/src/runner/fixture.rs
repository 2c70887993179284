//! The data a writing run seeds: failed runs of one tag whose fields are shared by some entries
//! and not others (so an ignored filter shows, and so does a filter that matches only some of
//! its values), with ids of several shapes (all-digit ones of different lengths, so a numeric
//! order shows), UTF-8, unicode and binary bodies, and entries that lack the optional fields.

use super::http::Auth;
use super::listing::Known;
use super::seed::Seed;
use super::{Run, Scene};
use courier_models::{FailedWorkflowRun, FailureCallbackInfo, FailureFunctionState, Headers};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

/// How many entries the fixture has: more than the small pages the walks use.
pub(crate) const SIZE: usize = 8;

/// The id suffixes: their byte order is not their numeric order.
const ID_SUFFIXES: [&str; SIZE] = ["2", "10", "9", "100", "1", "20", "3", "007"];

const STATES: [FailureFunctionState; 4] = [
    FailureFunctionState::CallbackInprogress,
    FailureFunctionState::CallbackSuccess,
    FailureFunctionState::CallbackFail,
    FailureFunctionState::CallbackCanceled,
];

/// Now, in Unix milliseconds.
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// One failed run of `tag`, number `index` (`index` may exceed the fixture for extra entries).
pub(crate) fn entry(tag: &str, index: usize, created_at: i64) -> FailedWorkflowRun {
    let state = (index % 8 != 6).then(|| STATES[index % 4]);
    let base64 = base64::engine::general_purpose::STANDARD;
    let (body, body_base64) = match index % 3 {
        0 => (Some(format!("{{\"courierVerify\":{index}}}")), None),
        1 => (Some(format!("héllo ✓ {index} — ünïcode")), None),
        _ => (
            None,
            Some(base64::Engine::encode(
                &base64,
                [0xff, 0xfe, 0x00, index as u8],
            )),
        ),
    };
    let mut header = BTreeMap::new();
    header.insert(
        "Content-Type".to_owned(),
        vec!["application/json".to_owned()],
    );
    header.insert("X-Courier-Verify".to_owned(), vec![tag.to_owned()]);
    let suffix = ID_SUFFIXES
        .get(index)
        .map_or_else(|| format!("x{index}"), |s| (*s).to_owned());
    let (labels, label) = if index % 8 == 5 {
        // Only the deprecated `label`, which the label filter matches too.
        (Vec::new(), Some(format!("{tag}-l{}", index % 3)))
    } else {
        let mut labels = vec![tag.to_owned(), format!("{tag}-l{}", index % 3)];
        if index % 4 == 3 {
            labels.push(format!("{tag}-ünï"));
        }
        (labels, None)
    };
    FailedWorkflowRun {
        body,
        body_base64,
        caller_ip: (index % 8 != 7).then(|| format!("192.0.2.{}", index % 3 + 1)),
        created_at,
        dlq_id: format!("{tag}-{suffix}"),
        failure_callback: state.map(|_| format!("https://{tag}.example.invalid/failure")),
        failure_callback_header: None,
        failure_callback_info: state.map(|state| FailureCallbackInfo {
            response_body: Some("failure function answered".into()),
            response_headers: None,
            response_status: Some(200),
            state,
        }),
        flow_control_key: (index % 8 != 4).then(|| format!("{tag}-fck-{}", index % 2)),
        header: Headers(header),
        label,
        labels,
        max_retries: (index % 4) as i64,
        message_id: format!("msg-{tag}-{index}"),
        method: if index.is_multiple_of(2) {
            "POST"
        } else {
            "PUT"
        }
        .to_owned(),
        not_before: None,
        response_body: Some(format!("destination failed {index}")),
        response_body_base64: None,
        response_header: None,
        response_status: Some(500 + (index % 3) as i64),
        url: format!("https://{tag}.example.invalid/step/{index}"),
        workflow_created_at: created_at - 1_000 + (index % 4) as i64,
        workflow_run_id: run_id(tag, index / 2),
        workflow_url: format!("https://{tag}.example.invalid/workflow/{}", index % 3),
    }
}

/// The workflow run of the fixture's entries `2 × run` and `2 × run + 1`.
pub(crate) fn run_id(tag: &str, run: usize) -> String {
    format!("wfr-{tag}-{run}")
}

/// The fixture of `tag`: [`SIZE`] entries created a little before now, one millisecond apart
/// at least (so a date range can hold some and not others).
pub(crate) fn entries(tag: &str) -> Vec<FailedWorkflowRun> {
    let base = now_ms() - 120_000;
    (0..SIZE)
        .map(|index| entry(tag, index, base + 7 * index as i64))
        .collect()
}

/// An entry as the list shows it: the stored run, with its failure function's state beside.
pub(crate) fn listed(run: &FailedWorkflowRun) -> Value {
    let mut listed = serde_json::to_value(run).unwrap_or(Value::Null);
    if let Some(info) = &run.failure_callback_info {
        listed["failureFunctionState"] = serde_json::to_value(info.state).unwrap_or(Value::Null);
    }
    listed
}

/// The fixture a writing run seeded: what was stored, and its entries as listed.
pub(crate) struct Fixture {
    pub runs: Vec<FailedWorkflowRun>,
    pub known: Known,
}

/// Seeds `runs`; a seed that fails, or answers the wrong number of ids, is a failure of the
/// scenario. The runs get the ids the seed answered.
async fn seed_runs(
    scene: &mut Scene<'_>,
    seed: &dyn Seed,
    mut runs: Vec<FailedWorkflowRun>,
) -> Result<Vec<FailedWorkflowRun>, String> {
    let count = runs.len();
    let error = match seed.insert_dlq(runs.clone()).await {
        Ok(ids) if ids.len() == count => {
            for (run, id) in runs.iter_mut().zip(ids) {
                run.dlq_id = id;
            }
            return Ok(runs);
        }
        Ok(ids) => format!(
            "asked to store {count} entries, the seed answered {} ids",
            ids.len()
        ),
        Err(error) => error,
    };
    scene.fail("seed", format!("seeding failed: {error}"));
    Err(error)
}

/// Seeds `count` entries of `tag` for one scenario.
pub(crate) async fn seed_entries(
    scene: &mut Scene<'_>,
    seed: &dyn Seed,
    tag: &str,
    count: usize,
) -> Vec<String> {
    let now = now_ms();
    let runs = (0..count)
        .map(|i| entry(tag, i, now - 60_000 + i as i64))
        .collect();
    seed_runs(scene, seed, runs)
        .await
        .map(|runs| runs.into_iter().map(|r| r.dlq_id).collect())
        .unwrap_or_default()
}

/// The fields a seeded entry must be got with: what was sent, but the ids and times an
/// implementation may choose.
fn expected_fields(run: &FailedWorkflowRun) -> serde_json::Map<String, Value> {
    let mut sent = serde_json::to_value(run)
        .ok()
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default();
    for chosen in ["dlqId", "messageId", "createdAt"] {
        sent.remove(chosen);
    }
    sent
}

/// The `seed` scenario: the fixture stored, each entry got back with its fields. Answers the
/// fixture, or why it could not be seeded.
pub(crate) async fn seed_fixture(
    run: &mut Run<'_>,
    seed: &dyn Seed,
    tag: &str,
) -> Result<Fixture, String> {
    let mut scene = run.scene();
    let started = std::time::Instant::now();
    let seeded = seed_runs(&mut scene, seed, entries(tag)).await;
    let mut fixture = seeded.map(|runs| Fixture {
        runs,
        known: Known::default(),
    });
    if let Ok(fixture) = &mut fixture {
        for run in &mut fixture.runs {
            let Some(got) = scene
                .call(
                    "getWorkflowDlq",
                    &[("dlqId", &run.dlq_id)],
                    &[],
                    Auth::Valid,
                )
                .await
            else {
                continue;
            };
            if !scene.expect_status(&got, &[200], "for an entry the seed just stored") {
                continue;
            }
            for (name, value) in expected_fields(run) {
                let pointer = format!("/{}", crate::violation::pointer_token(&name));
                let answered = got.at(&pointer).clone();
                if answered != value {
                    scene.violate(
                        &got,
                        pointer,
                        "seed",
                        &answered,
                        format!(
                            "seeded with {name} = {}; get answers otherwise",
                            crate::violation::shorten(&value.to_string())
                        ),
                    );
                }
            }
            if let Some(created) = got.at("/createdAt").as_i64() {
                run.created_at = created;
            }
        }
        fixture.known = Known {
            entries: fixture.runs.iter().map(listed).collect(),
            seeded: true,
            seed_failure: None,
        };
    }
    if run.chosen("seed") {
        run.record("seed", scene, started);
    }
    fixture
}
