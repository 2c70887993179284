//! Realistic failed workflow runs from a fixed seed: the data of `courier serve --demo` and of
//! the benchmark fill (`courier-fill` in `crates/bench`).
//!
//! One generator, so the demo shows the shapes the benchmarks measure. The `i`-th run depends
//! only on the seed and `i` (its own ChaCha8 stream, which `rand_chacha` keeps stable across
//! platforms and releases), so a store of any size has the same value distributions and a fill
//! can be written in independent ranges.

use base64::Engine as _;
use courier_models::{FailedWorkflowRun, FailureCallbackInfo, FailureFunctionState, Headers};
use rand::seq::IndexedRandom as _;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// The values runs are drawn from, and how their ids read.
#[derive(Clone, Copy, Debug)]
pub struct Vocabulary {
    /// The seed of every run's stream.
    pub seed: u64,
    /// Workflow URLs, chosen uniformly.
    pub workflows: &'static [&'static str],
    /// Every run has one label, and a second different one half of the time it draws one, so
    /// with `n` labels a label matches about `1/n + (n-1)/n · 1/n · 1/2` of the runs.
    pub labels: &'static [&'static str],
    /// Caller IPs, chosen uniformly.
    pub caller_ips: &'static [&'static str],
    /// Entry `i` has `flow_control_keys[i % (n + 1)]`, none when that index is `n`: each key
    /// matches exactly one entry in `n + 1`.
    pub flow_control_keys: &'static [&'static str],
    /// `workflowRunId` of entry `i` (two entries per run): the prefix, then `first_run + i / 2`
    /// zero-padded to `run_digits`.
    pub run_id_prefix: &'static str,
    pub first_run: u64,
    pub run_digits: usize,
}

/// Step names appended to the workflow URL, chosen uniformly.
pub const STEPS: &[&str] = &[
    "charge-card",
    "reserve-stock",
    "send-email",
    "call-webhook",
    "write-ledger",
    "fetch-page",
];

/// Where the entries' `createdAt` values lie: `total` entries spread evenly over `span_ms`
/// ending at `now_ms`, oldest first (entry `i` is never older than entry `i - 1`).
#[derive(Clone, Copy, Debug)]
pub struct Spread {
    pub now_ms: i64,
    pub span_ms: i64,
    pub total: u64,
}

impl Spread {
    fn created_at(&self, index: u64, jitter: u64) -> i64 {
        let step = (self.span_ms as f64 / self.total.max(1) as f64).max(1.0);
        let offset = (index as f64 * step) as i64 + (jitter % step as u64) as i64;
        self.now_ms - self.span_ms + offset
    }
}

/// A header map with one value per name.
pub fn headers(pairs: &[(&str, &str)]) -> Headers {
    Headers(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), vec![(*v).to_owned()]))
            .collect::<BTreeMap<_, _>>(),
    )
}

/// Failed runs `range` (indices into the `spread.total` entries), `dlqId` left empty so the
/// store assigns `<createdAt>-<seq>` as it does for the admin API.
pub fn failed_runs(
    vocabulary: &Vocabulary,
    spread: Spread,
    range: std::ops::Range<u64>,
) -> Vec<FailedWorkflowRun> {
    range.map(|i| failed_run(vocabulary, spread, i)).collect()
}

/// Failed run `i` of `spread.total`.
pub fn failed_run(vocabulary: &Vocabulary, spread: Spread, i: u64) -> FailedWorkflowRun {
    const STATES: [FailureFunctionState; 4] = [
        FailureFunctionState::CallbackInprogress,
        FailureFunctionState::CallbackSuccess,
        FailureFunctionState::CallbackFail,
        FailureFunctionState::CallbackCanceled,
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(vocabulary.seed);
    rng.set_stream(i);
    let mut pick = |items: &'static [&'static str]| -> &'static str {
        items.choose(&mut rng).copied().unwrap_or_default()
    };
    let workflow_url = pick(vocabulary.workflows).to_owned();
    let step = pick(STEPS);
    let first = pick(vocabulary.labels).to_owned();
    let second = pick(vocabulary.labels).to_owned();
    let caller_ip = pick(vocabulary.caller_ips).to_owned();
    let created_at = spread.created_at(i, rng.random());
    let run = vocabulary.first_run + i / 2;
    let has_callback = !i.is_multiple_of(3);
    let binary = i.is_multiple_of(7);
    let mut labels = vec![first.clone()];
    if second != first && rng.random::<bool>() {
        labels.push(second);
    }
    labels.sort();
    let status = *[500u16, 502, 503, 504, 429, 400]
        .choose(&mut rng)
        .expect("not empty");
    let keys = vocabulary.flow_control_keys;
    let key_index = (i % (keys.len() as u64 + 1)) as usize;
    let base64 = base64::engine::general_purpose::STANDARD;
    FailedWorkflowRun {
        message_id: format!("msg_{:016x}", rng.random::<u64>()),
        dlq_id: String::new(),
        url: format!("{workflow_url}/steps/{step}"),
        method: "POST".into(),
        header: headers(&[
            (
                "Content-Type",
                if binary {
                    "application/octet-stream"
                } else {
                    "application/json"
                },
            ),
            ("Upstash-Workflow-Sdk-Version", "1"),
        ]),
        // Text bodies carry non-ASCII, which every view must keep intact.
        body: (!binary).then(|| {
            format!(
                r#"{{"order":{run},"step":"{step}","customer":"cus_{:08x}","items":[{{"sku":"sku-{}","qty":{}}}],"note":"crème brûlée ×2"}}"#,
                rng.random::<u32>(),
                rng.random_range(0..10_000),
                rng.random_range(1..=5)
            )
        }),
        body_base64: binary.then(|| base64.encode([0xff, 0xfe, 0x00, (i % 256) as u8, 0x80])),
        max_retries: 3,
        not_before: Some(created_at),
        created_at,
        failure_callback: has_callback.then(|| format!("{workflow_url}/failure")),
        failure_callback_header: has_callback.then(|| headers(&[("Upstash-Callback", "failure")])),
        caller_ip: Some(caller_ip),
        workflow_run_id: format!(
            "{}{run:0width$}",
            vocabulary.run_id_prefix,
            width = vocabulary.run_digits
        ),
        workflow_created_at: created_at - 60_000,
        workflow_url,
        flow_control_key: keys.get(key_index).map(|key| (*key).to_owned()),
        label: Some(first),
        labels,
        response_status: Some(i64::from(status)),
        response_header: Some(headers(&[("Content-Type", "application/json")])),
        response_body: Some(format!(r#"{{"error":"upstream answered {status}"}}"#)),
        response_body_base64: None,
        failure_callback_info: has_callback.then(|| {
            let state = *STATES.choose(&mut rng).expect("not empty");
            FailureCallbackInfo {
                state,
                response_status: (state != FailureFunctionState::CallbackInprogress).then_some(
                    if state == FailureFunctionState::CallbackFail {
                        500
                    } else {
                        200
                    },
                ),
                response_body: (state == FailureFunctionState::CallbackSuccess)
                    .then(|| "ok".to_owned()),
                response_headers: None,
            }
        }),
    }
}
