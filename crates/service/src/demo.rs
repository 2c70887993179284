//! Demo data for `courier serve --demo`: a DLQ worth looking at, URL groups and a search index.
//!
//! Generated from a fixed seed, so the README's walk-through sees the same data on every machine;
//! timestamps are relative to now, so the entries stay within the retention period.

use crate::api::Service;
use crate::sample::{self, Spread, Vocabulary};
use crate::stats;
use crate::time::now_ms;
use courier_models::{FailedWorkflowRun, IndexRegion, IndexType, SearchIndex, UrlGroupEndpoint};

/// Credentials `--demo` uses when none are given, so the README's commands work verbatim.
pub const DEMO_CUSTOMER_ID: &str = "demo@courier.dev";
pub const DEMO_SERVICE_TOKEN: &str = "demo-service-token";
pub const DEMO_MANAGEMENT_KEY: &str = "demo-management-key";
/// The demo search index.
pub const DEMO_INDEX_ID: &str = "6f1d3c1e-8f6a-4c1b-9a7e-2b5d0c9e4a10";
/// How many failed runs the demo DLQ holds.
pub const DEMO_ENTRIES: usize = 300;

/// The demo's values: few enough that filters in the README's walk-through match a handful.
const DEMO_VOCABULARY: Vocabulary = Vocabulary {
    seed: 0x00C0_0E1E,
    workflows: &[
        "https://shop.example.com/api/workflows/checkout",
        "https://shop.example.com/api/workflows/refund",
        "https://mail.example.com/workflows/welcome-sequence",
        "https://etl.example.com/workflows/nightly-import",
    ],
    labels: &["billing", "onboarding", "etl", "priority", "beta"],
    caller_ips: &["203.0.113.7", "198.51.100.23", "192.0.2.44", "2001:db8::1"],
    flow_control_keys: &["tenant-acme", "tenant-globex", "tenant-initech"],
    run_id_prefix: "wfr_demo",
    first_run: 1000,
    run_digits: 5,
};

/// The demo failed runs over the three days before `now`, newest last.
pub fn failed_runs(now: i64) -> Vec<FailedWorkflowRun> {
    let spread = Spread {
        now_ms: now,
        span_ms: 3 * 86_400_000,
        total: DEMO_ENTRIES as u64,
    };
    sample::failed_runs(&DEMO_VOCABULARY, spread, 0..spread.total)
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
                .add(stats::RUN_STARTED, run.workflow_created_at, 1.0);
        }
        service.usage().add(stats::FAILED, run.created_at, 1.0);
        service.usage().add(stats::RUN_FAILED, run.created_at, 1.0);
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
