//! What courier-client's opt-in validation (`validate_responses(true)`) costs on a page of 100
//! entries: the CPU of validating and decoding the page (courier-verify's `Validator::decode`,
//! one checking pass, as the client does it) against decoding it alone, the full validator's
//! tree walk that writes a report when an answer breaks the contract, and whole list requests
//! through the client with validation off and on, interleaved against one running service.
//! `bench/run.sh` writes the figures to BENCHMARKS.md.

use clap::Parser;
use courier_bench::{ServiceArgs, median};
use courier_client::{RetryPolicy, messaging};
use courier_models::WorkflowDlqPage;
use courier_verify::{Decoded, Validator};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[derive(Parser)]
struct Args {
    // The service, holding at least 100 entries.
    #[command(flatten)]
    service: ServiceArgs,
    /// Rounds of each measurement; the median round is reported.
    #[arg(long, default_value_t = 15)]
    rounds: usize,
    /// Decodes (or whole requests) per round.
    #[arg(long, default_value_t = 200)]
    per_round: usize,
}

/// For each of `works`, the median over `rounds` of its time per call, `per_round` calls a
/// round. The works take turns round by round, so a machine busy with something else for a
/// while slows them alike and their ratios hold.
fn per_call(rounds: usize, per_round: usize, works: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    let mut times = vec![Vec::with_capacity(rounds); works.len()];
    for _ in 0..rounds {
        for (work, times) in works.iter_mut().zip(&mut times) {
            let started = Instant::now();
            for _ in 0..per_round {
                work();
            }
            times.push(started.elapsed() / per_round as u32);
        }
    }
    times.into_iter().map(median).collect()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    // The operation the client's `list_workflow_dlq` sends, as the spec names it.
    let list = courier_models::operation("list_workflow_dlq").expect("an operation of the spec");
    let url = format!("{}{}?count=100", args.service.base_url, list.path);
    let answer = reqwest::Client::new()
        .get(&url)
        .bearer_auth(&args.service.token)
        .send()
        .await?
        .error_for_status()?;
    let status = answer.status().as_u16();
    let headers = answer.headers().clone();
    let page = answer.bytes().await?;
    let entries = serde_json::from_slice::<WorkflowDlqPage>(&page)?
        .messages
        .len();
    assert_eq!(entries, 100, "the service must hold at least 100 entries");

    let validator = Validator::courier()?;
    assert!(
        validator
            .validate(list.id, status, &headers, &page)
            .is_empty()
    );
    let (rounds, per_round) = (args.rounds, args.per_round);
    let mut decode = || {
        black_box(serde_json::from_slice::<WorkflowDlqPage>(black_box(&page)).expect("a page"));
    };
    let mut parse_tree = || {
        black_box(serde_json::from_slice::<serde_json::Value>(black_box(&page)).expect("JSON"));
    };
    let mut validate_and_decode = || {
        let decoded =
            validator.decode::<WorkflowDlqPage>(list.id, status, &headers, black_box(&page));
        assert!(matches!(decoded, Decoded::Valid(_)));
        black_box(decoded);
    };
    // About what an answer that breaks the contract costs (the checking pass, which decodes,
    // then the full validator's tree walk for the report): the tree walk, then decoding, timed
    // on the valid page, which the walk reads whole.
    let mut full_validate_and_decode = || {
        let found = validator.validate(list.id, status, &headers, black_box(&page));
        assert!(found.is_empty());
        black_box(serde_json::from_slice::<WorkflowDlqPage>(black_box(&page)).expect("a page"));
    };
    let [
        decode,
        parse_tree,
        validate_and_decode,
        full_validate_and_decode,
    ] = per_call(
        rounds,
        per_round,
        &mut [
            &mut decode,
            &mut parse_tree,
            &mut validate_and_decode,
            &mut full_validate_and_decode,
        ],
    )[..]
    else {
        unreachable!("one time per work")
    };

    let client = |validate: bool| {
        messaging::Client::builder()
            .base_url(&args.service.base_url)
            .token(&args.service.token)
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
        "{} {:.1} {:.1} {:.1} {:.1} {:.1} {:.1}",
        page.len(),
        decode.as_secs_f64() * 1e6,
        parse_tree.as_secs_f64() * 1e6,
        validate_and_decode.as_secs_f64() * 1e6,
        request_plain.as_secs_f64() * 1e6,
        request_validating.as_secs_f64() * 1e6,
        full_validate_and_decode.as_secs_f64() * 1e6,
    );
    Ok(())
}
