//! What a fresh service per test costs a whole suite: the same contract tests run once with a
//! new `TestService` each (started, used, dropped) and once all against one shared service, and
//! the ratio of the two wall times. `bench/run.sh` writes the figures to BENCHMARKS.md.
//!
//! Each test is what a contract test of this repository does: it seeds three failed runs of its
//! own workflow run through the admin API, builds a `courier-client` for the service, lists the
//! run's entries, gets one, cancels the run and lists again (six requests). On the shared
//! service each test's run id is its own, so tests never see each other's data, as a suite
//! sharing one service must arrange. Tests run `--parallel` at a time, like `cargo test`'s
//! threads.

use clap::Parser;
use courier_bench::median;
use courier_client::messaging;
use courier_service::testing::TestService;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[derive(Parser)]
struct Args {
    /// Tests per suite.
    #[arg(long, default_value_t = 1000)]
    tests: usize,
    /// Tests running at a time (`cargo test` runs one per core).
    #[arg(long, default_value_t = std::thread::available_parallelism().map_or(1, |n| n.get()))]
    parallel: usize,
    /// Suites of each kind, alternating fresh and shared; the median of each is reported.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
}

/// A failed run of `run_id` in the admin API's input shape, created `age_ms` ago.
fn entry(run_id: &str, age_ms: i64) -> Value {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    json!({
        "url": "https://a.example/wf/step-1",
        "method": "POST",
        "header": {"Content-Type": ["application/json"]},
        "body": "{\"order\":42}",
        "maxRetries": 3,
        "createdAt": now - age_ms,
        "workflowRunId": run_id,
        "workflowCreatedAt": now - age_ms - 1000,
        "workflowUrl": "https://a.example/wf",
        "labels": ["suite"],
    })
}

/// One contract test against `service`; panics when the service breaks the contract.
async fn contract_test(service: &TestService, test: usize) {
    let run_id = format!("wfr_suite_{test:06}");
    let ids = service
        .insert_dlq(&[entry(&run_id, 3), entry(&run_id, 2), entry(&run_id, 1)])
        .await;
    let client = messaging::Client::builder()
        .base_url(service.base_url())
        .token(&service.service_token)
        .build()
        .expect("a client");
    assert_eq!(listed(&client, &run_id).await, 3, "the run's three entries");
    let one = client
        .get_workflow_dlq()
        .dlq_id(ids[1].as_str())
        .send()
        .await
        .expect("get")
        .into_inner();
    assert_eq!(one.dlq_id, ids[1]);
    client
        .cancel_workflow_run()
        .workflow_run_id(run_id.as_str())
        .cancel(true)
        .send()
        .await
        .expect("cancel");
    assert_eq!(listed(&client, &run_id).await, 0, "cancelled with its run");
}

/// How many entries of `run_id` the first page lists.
async fn listed(client: &messaging::Client, run_id: &str) -> usize {
    let request = client.list_workflow_dlq().workflow_run_id(run_id);
    request
        .send()
        .await
        .expect("list")
        .into_inner()
        .messages
        .len()
}

/// Runs `tests` tests, `parallel` at a time, each on a fresh service or all on `shared`.
async fn suite(tests: usize, parallel: usize, shared: Option<Arc<TestService>>) -> Duration {
    let started = Instant::now();
    let next = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..parallel)
        .map(|_| {
            let (next, shared) = (next.clone(), shared.clone());
            tokio::spawn(async move {
                loop {
                    let test = next.fetch_add(1, Ordering::Relaxed);
                    if test >= tests {
                        break;
                    }
                    match &shared {
                        Some(service) => contract_test(service, test).await,
                        None => {
                            let service = TestService::start().await;
                            contract_test(&service, test).await;
                        }
                    }
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("a test panicked");
    }
    started.elapsed()
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args = Args::parse();
    let (mut fresh, mut shared) = (Vec::new(), Vec::new());
    for _ in 0..args.rounds {
        fresh.push(suite(args.tests, args.parallel, None).await);
        // The shared service's own start is part of its suite's time, as in a real suite.
        let started = Instant::now();
        let service = Arc::new(TestService::start().await);
        suite(args.tests, args.parallel, Some(service)).await;
        shared.push(started.elapsed());
    }
    let (fresh, shared) = (median(fresh), median(shared));
    // One line for bench/run.sh: both wall times in ms, their ratio, tests and parallelism.
    println!(
        "{:.1} {:.1} {:.3} {} {}",
        fresh.as_secs_f64() * 1e3,
        shared.as_secs_f64() * 1e3,
        fresh.as_secs_f64() / shared.as_secs_f64(),
        args.tests,
        args.parallel,
    );
}
