//! Benchmark tooling for courier: realistic failed workflow runs in bulk, for `courier-fill`.
//!
//! [`entries`] makes the `i`-th of `total` failed runs deterministically (a fixed seed per
//! index), so a store of any size has the same value distributions, documented by the constants
//! below; `bench/run.sh` picks its filters from them and `BENCHMARKS.md` quotes their
//! selectivity.

use base64::Engine as _;
use courier_models::{FailedWorkflowRun, FailureCallbackInfo, FailureFunctionState};
use courier_service::demo::{Seeded, headers};

/// Workflow URLs, chosen uniformly (1/16 each).
pub const WORKFLOWS: [&str; 16] = [
    "https://shop.example.com/api/workflows/checkout",
    "https://shop.example.com/api/workflows/refund",
    "https://shop.example.com/api/workflows/restock",
    "https://shop.example.com/api/workflows/invoice",
    "https://mail.example.com/workflows/welcome-sequence",
    "https://mail.example.com/workflows/digest",
    "https://mail.example.com/workflows/password-reset",
    "https://mail.example.com/workflows/churn-winback",
    "https://etl.example.com/workflows/nightly-import",
    "https://etl.example.com/workflows/hourly-sync",
    "https://etl.example.com/workflows/backfill",
    "https://etl.example.com/workflows/export-csv",
    "https://ops.example.com/workflows/rotate-keys",
    "https://ops.example.com/workflows/provision",
    "https://ops.example.com/workflows/deprovision",
    "https://ops.example.com/workflows/audit",
];

/// Labels: every entry has one or two, drawn uniformly, so a label matches about 18%
/// (1/8 + 7/8 · 1/8 · 1/2).
pub const LABELS: [&str; 8] = [
    "billing",
    "onboarding",
    "etl",
    "priority",
    "beta",
    "reports",
    "sync",
    "alerts",
];

/// Caller IPs, chosen uniformly (1/8 each).
pub const CALLER_IPS: [&str; 8] = [
    "203.0.113.7",
    "203.0.113.19",
    "198.51.100.23",
    "198.51.100.61",
    "192.0.2.44",
    "192.0.2.90",
    "2001:db8::1",
    "2001:db8::7",
];

/// Flow control keys: entry `i` has `tenant-0{i % 10}`, except `i % 10 == 9`, which has none;
/// so `tenant-00` matches exactly one entry in ten (100,000 of 1,000,000).
pub const FLOW_KEYS: usize = 9;

/// Step names appended to the workflow URL.
const STEPS: [&str; 6] = [
    "charge-card",
    "reserve-stock",
    "send-email",
    "call-webhook",
    "write-ledger",
    "fetch-page",
];

const STATES: [FailureFunctionState; 4] = [
    FailureFunctionState::CallbackInprogress,
    FailureFunctionState::CallbackSuccess,
    FailureFunctionState::CallbackFail,
    FailureFunctionState::CallbackCanceled,
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

/// Failed runs `range` (indices into the `spread.total` entries of a fill), `dlqId` left empty
/// so the store assigns `<createdAt>-<seq>` as it does for the admin API.
pub fn entries(range: std::ops::Range<u64>, spread: Spread) -> Vec<FailedWorkflowRun> {
    range.map(|i| entry(i, spread)).collect()
}

/// The `i`-th failed run of a fill.
pub fn entry(i: u64, spread: Spread) -> FailedWorkflowRun {
    let mut rng = Seeded(0xC0C0_0E1E ^ i.wrapping_mul(0x2545_F491_4F6C_DD1D));
    let created_at = spread.created_at(i, rng.next_u64());
    let workflow_url = rng.pick(&WORKFLOWS).to_string();
    let step = rng.pick(&STEPS);
    // Two to three failed steps per run.
    let run = i / 2;
    let has_callback = !i.is_multiple_of(3);
    let binary = i.is_multiple_of(7);
    let first = rng.pick(&LABELS).to_string();
    let second = rng.pick(&LABELS).to_string();
    let mut labels = vec![first.clone()];
    if second != first && rng.next_u64().is_multiple_of(2) {
        labels.push(second);
    }
    labels.sort();
    let status = *rng.pick(&[500u16, 502, 503, 504, 429, 400]);
    let base64 = base64::engine::general_purpose::STANDARD;
    FailedWorkflowRun {
        message_id: format!("msg_{:016x}", rng.next_u64()),
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
        body: (!binary).then(|| {
            format!(
                r#"{{"order":{run},"step":"{step}","customer":"cus_{:08x}","items":[{{"sku":"sku-{}","qty":{}}}]}}"#,
                rng.next_u64() as u32,
                rng.next_u64() % 10_000,
                1 + rng.next_u64() % 5
            )
        }),
        body_base64: binary.then(|| base64.encode((i as u32).to_be_bytes())),
        max_retries: 3,
        not_before: Some(created_at),
        created_at,
        failure_callback: has_callback.then(|| format!("{workflow_url}/failure")),
        failure_callback_header: has_callback.then(|| headers(&[("Upstash-Callback", "failure")])),
        caller_ip: Some(rng.pick(&CALLER_IPS).to_string()),
        workflow_run_id: format!("wfr_bench{run:09}"),
        workflow_created_at: created_at - 60_000,
        workflow_url,
        flow_control_key: ((i % 10) < FLOW_KEYS as u64).then(|| format!("tenant-{:02}", i % 10)),
        label: Some(first),
        labels,
        response_status: Some(i64::from(status)),
        response_header: Some(headers(&[("Content-Type", "application/json")])),
        response_body: Some(format!(r#"{{"error":"upstream answered {status}"}}"#)),
        response_body_base64: None,
        failure_callback_info: has_callback.then(|| {
            let state = *rng.pick(&STATES);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_deterministic_ordered_and_spread() {
        let spread = Spread {
            now_ms: 1_700_000_000_000,
            span_ms: 3 * 86_400_000,
            total: 1000,
        };
        let a = entries(0..1000, spread);
        assert_eq!(a, entries(0..1000, spread));
        assert!(a.windows(2).all(|w| w[0].created_at <= w[1].created_at));
        assert!(a[0].created_at >= spread.now_ms - spread.span_ms);
        assert!(a[999].created_at <= spread.now_ms);
        let tenant0 = a
            .iter()
            .filter(|e| e.flow_control_key.as_deref() == Some("tenant-00"))
            .count();
        assert_eq!(tenant0, 100);
        let billing = a
            .iter()
            .filter(|e| e.labels.iter().any(|l| l == "billing"))
            .count();
        assert!((150..300).contains(&billing), "{billing}");
    }
}
