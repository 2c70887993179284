//! Demo data for `courier serve --demo`: a DLQ worth looking at, URL groups and a search index.
//!
//! Generated from a fixed seed, so the README's walk-through sees the same data on every machine;
//! timestamps are relative to now, so the entries stay within the retention period.

use crate::api::Service;
use crate::time::now_ms;
use base64::Engine as _;
use courier_models::{
    FailedWorkflowRun, FailureCallbackInfo, FailureFunctionState, HeaderMap, IndexRegion,
    IndexType, SearchIndex, UrlGroupEndpoint,
};
use std::collections::BTreeMap;

/// Credentials `--demo` uses when none are given, so the README's commands work verbatim.
pub const DEMO_CUSTOMER_ID: &str = "demo@courier.dev";
pub const DEMO_SERVICE_TOKEN: &str = "demo-service-token";
pub const DEMO_MANAGEMENT_KEY: &str = "demo-management-key";
/// The demo search index.
pub const DEMO_INDEX_ID: &str = "6f1d3c1e-8f6a-4c1b-9a7e-2b5d0c9e4a10";
/// How many failed runs the demo DLQ holds.
pub const DEMO_ENTRIES: usize = 300;

/// A small deterministic generator (SplitMix64): reproducible demo and benchmark data without a
/// dependency.
pub struct Seeded(pub u64);

impl Seeded {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next_u64() % items.len() as u64) as usize]
    }
}

/// A header map with one value per name.
pub fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    HeaderMap(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), vec![(*v).to_owned()]))
            .collect::<BTreeMap<_, _>>(),
    )
}

/// The demo failed runs, newest last.
pub fn failed_runs(now: i64) -> Vec<FailedWorkflowRun> {
    let mut rng = Seeded(0x00C0_0E1E);
    let workflows = [
        "https://shop.example.com/api/workflows/checkout",
        "https://shop.example.com/api/workflows/refund",
        "https://mail.example.com/workflows/welcome-sequence",
        "https://etl.example.com/workflows/nightly-import",
    ];
    let steps = [
        "charge-card",
        "reserve-stock",
        "send-email",
        "call-webhook",
        "write-ledger",
    ];
    let labels = ["billing", "onboarding", "etl", "priority", "beta"];
    let ips = ["203.0.113.7", "198.51.100.23", "192.0.2.44", "2001:db8::1"];
    let flow_keys = ["tenant-acme", "tenant-globex", "tenant-initech"];
    let states = [
        FailureFunctionState::CallbackInprogress,
        FailureFunctionState::CallbackSuccess,
        FailureFunctionState::CallbackFail,
        FailureFunctionState::CallbackCanceled,
    ];
    let base64 = base64::engine::general_purpose::STANDARD;
    (0..DEMO_ENTRIES)
        .map(|i| {
            let created_at =
                now - 3 * 86_400_000 + (i as i64) * 800_000 + (rng.next_u64() % 1000) as i64;
            let workflow_url = rng.pick(&workflows).to_string();
            let step = rng.pick(&steps);
            let run_number = 1000 + i / 2;
            let has_callback = i % 3 != 0;
            let binary = i % 7 == 0;
            let label = rng.pick(&labels).to_string();
            let status = *rng.pick(&[500u16, 502, 503, 504, 429, 400]);
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
                    format!(r#"{{"order":{run_number},"step":"{step}","note":"crème brûlée ×2"}}"#)
                }),
                body_base64: binary
                    .then(|| base64.encode([0xffu8, 0xfe, 0x00, (i % 256) as u8, 0x80])),
                max_retries: 3,
                not_before: Some(created_at),
                created_at,
                failure_callback: has_callback.then(|| format!("{workflow_url}/failure")),
                failure_callback_header: has_callback
                    .then(|| headers(&[("Upstash-Callback", "failure")])),
                caller_ip: Some(rng.pick(&ips).to_string()),
                workflow_run_id: format!("wfr_demo{run_number:05}"),
                workflow_created_at: created_at - 60_000,
                workflow_url,
                flow_control_key: (i % 4 != 0).then(|| rng.pick(&flow_keys).to_string()),
                label: Some(label.clone()),
                labels: vec![label, rng.pick(&labels).to_string()]
                    .into_iter()
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect(),
                response_status: Some(i64::from(status)),
                response_header: Some(headers(&[("Content-Type", "application/json")])),
                response_body: Some(format!(r#"{{"error":"upstream answered {status}"}}"#)),
                response_body_base64: None,
                failure_callback_info: has_callback.then(|| {
                    let state = *rng.pick(&states);
                    FailureCallbackInfo {
                        state,
                        response_status: (state != FailureFunctionState::CallbackInprogress)
                            .then_some(if state == FailureFunctionState::CallbackFail {
                                500
                            } else {
                                200
                            }),
                        response_body: (state == FailureFunctionState::CallbackSuccess)
                            .then(|| "ok".to_owned()),
                        response_headers: None,
                    }
                }),
            }
        })
        .collect()
}

/// Seeds demo data into an empty DLQ; returns how many failed runs were added (0 when the DLQ
/// already had entries, so restarts with `--demo` do not duplicate anything).
pub async fn seed(service: &Service) -> Result<usize, String> {
    let floor = service.retention_floor();
    let existing = service
        .blocking(move |store| store.dlq_count(floor))
        .await
        .map_err(|e| e.to_string())?;
    if existing > 0 {
        return Ok(0);
    }
    let now = now_ms();
    let runs = failed_runs(now);
    let count = runs.len();
    // The statistics should show the demo's history: each run started (once) and failed at
    // its time.
    let mut started = std::collections::BTreeSet::new();
    for run in &runs {
        if started.insert(run.workflow_run_id.as_str()) {
            service
                .usage()
                .add("run_started", run.workflow_created_at, 1.0);
        }
        service.usage().add("failed", run.created_at, 1.0);
        service.usage().add("run_failed", run.created_at, 1.0);
    }
    let max = u64::try_from(service.account().max_dlq_size).unwrap_or(0);
    let customer_id = service.account().customer_id;
    service
        .blocking(move |store| {
            store.insert_dlq(&runs, max)?;
            let endpoint = |name: &str, url: &str| UrlGroupEndpoint {
                name: name.into(),
                url: url.into(),
            };
            store.put_url_group(
                "orders",
                &[
                    endpoint("billing", "https://billing.example.com/hooks/orders"),
                    endpoint("warehouse", "https://warehouse.example.com/orders"),
                ],
                now,
            )?;
            store.put_url_group(
                "notifications",
                &[endpoint("", "https://notify.example.com/inbox")],
                now,
            )?;
            store.put_index(&SearchIndex {
                customer_id,
                id: DEMO_INDEX_ID.parse().map_err(|e| {
                    crate::store::StoreError::Internal(format!("demo index id: {e}"))
                })?,
                name: "products".into(),
                endpoint: "https://products-demo.example.com".into(),
                type_: IndexType::Payg,
                region: IndexRegion::EuWest1,
                hosting_email: String::new(),
                token: "demo-index-token".into(),
                read_only_token: "demo-index-read-only-token".into(),
                max_vector_count: 2_000_000_000,
                max_monthly_reranks: -1,
                max_daily_updates: -1,
                max_daily_queries: -1,
                max_monthly_bandwidth: -1,
                max_writes_per_second: 1000,
                max_query_per_second: 1000,
                max_reads_per_request: 1000,
                max_writes_per_request: 1000,
                creation_time: now / 1000,
                input_enrichment_enabled: true,
                throughput_vector: Vec::new(),
            })
        })
        .await
        .map_err(|e| e.to_string())?;
    Ok(count)
}
