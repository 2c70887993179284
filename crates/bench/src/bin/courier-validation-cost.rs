//! What courier-client's opt-in validation (`validate_responses(true)`) costs on a page of 100
//! entries: the CPU of validating and decoding the page against decoding it alone, and whole
//! list requests through the client with validation off and on, interleaved against one
//! running service. `bench/run.sh` writes the figures to BENCHMARKS.md.

use clap::Parser;
use courier_client::{RetryPolicy, messaging};
use courier_models::WorkflowDlqPage;
use courier_verify::Validator;
use std::hint::black_box;
use std::time::{Duration, Instant};

#[derive(Parser)]
struct Args {
    /// The service, e.g. http://127.0.0.1:18600, holding at least 100 entries.
    #[arg(long)]
    base_url: String,
    #[arg(long)]
    token: String,
    /// Rounds of each measurement; the median round is reported.
    #[arg(long, default_value_t = 15)]
    rounds: usize,
    /// Decodes (or whole requests) per round.
    #[arg(long, default_value_t = 200)]
    per_round: usize,
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// The median over `rounds` of the time per call of `work`, `per_round` calls a round.
fn per_call(rounds: usize, per_round: usize, mut work: impl FnMut()) -> Duration {
    median(
        (0..rounds)
            .map(|_| {
                let started = Instant::now();
                for _ in 0..per_round {
                    work();
                }
                started.elapsed() / per_round as u32
            })
            .collect(),
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let url = format!("{}/v2/workflows/dlq?count=100", args.base_url);
    let answer = reqwest::Client::new()
        .get(&url)
        .bearer_auth(&args.token)
        .send()
        .await?
        .error_for_status()?;
    let headers = answer.headers().clone();
    let page = answer.bytes().await?;
    let entries = serde_json::from_slice::<WorkflowDlqPage>(&page)?
        .messages
        .len();
    assert_eq!(entries, 100, "the service must hold at least 100 entries");

    let validator = Validator::courier()?;
    assert!(
        validator
            .validate("listWorkflowDlq", 200, &headers, &page)
            .is_empty()
    );
    let (rounds, per_round) = (args.rounds, args.per_round);
    let decode = per_call(rounds, per_round, || {
        black_box(serde_json::from_slice::<WorkflowDlqPage>(black_box(&page)).expect("a page"));
    });
    let parse_tree = per_call(rounds, per_round, || {
        black_box(serde_json::from_slice::<serde_json::Value>(black_box(&page)).expect("JSON"));
    });
    let validate_and_decode = per_call(rounds, per_round, || {
        let found = validator.validate("listWorkflowDlq", 200, &headers, black_box(&page));
        assert!(found.is_empty());
        black_box(serde_json::from_slice::<WorkflowDlqPage>(black_box(&page)).expect("a page"));
    });

    let client = |validate: bool| {
        messaging::Client::builder()
            .base_url(&args.base_url)
            .token(&args.token)
            .retry(RetryPolicy::none())
            .validate_responses(validate)
            .build()
    };
    let (plain, validating) = (client(false)?, client(true)?);
    let mut request_times = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        for (client, times) in [
            (&plain, &mut request_times.0),
            (&validating, &mut request_times.1),
        ] {
            let started = Instant::now();
            for _ in 0..per_round / 4 {
                black_box(client.list_workflow_dlq().count(100).send().await?);
            }
            times.push(started.elapsed() / (per_round / 4) as u32);
        }
    }
    let (request_plain, request_validating) = (median(request_times.0), median(request_times.1));
    // One line for bench/run.sh: page bytes, then microseconds per call.
    println!(
        "{} {:.1} {:.1} {:.1} {:.1} {:.1}",
        page.len(),
        decode.as_secs_f64() * 1e6,
        parse_tree.as_secs_f64() * 1e6,
        validate_and_decode.as_secs_f64() * 1e6,
        request_plain.as_secs_f64() * 1e6,
        request_validating.as_secs_f64() * 1e6,
    );
    Ok(())
}
