//! What courier-client's `dlq_stream` costs a user walking a whole DLQ, against the plainest
//! code that reads the same pages: reqwest and serde_json, following the cursor by hand into
//! the same models. Both walk every entry of the service, one page after another, in the same
//! process against the same service, in turns; `bench/run.sh` writes the figures to
//! BENCHMARKS.md.

use clap::Parser;
use courier_bench::{ServiceArgs, median};
use courier_client::{DlqFilter, RetryPolicy, messaging};
use courier_models::WorkflowDlqPage;
use futures::TryStreamExt;
use std::time::Instant;

#[derive(Parser)]
struct Args {
    #[command(flatten)]
    service: ServiceArgs,
    /// Walks of each kind; the median is reported.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
}

/// Every entry through `dlq_stream`, as a user of the client reads a DLQ.
async fn walk_with_stream(client: &messaging::Client) -> Result<u64, Box<dyn std::error::Error>> {
    Ok(client
        .dlq_stream(DlqFilter::new())
        .try_fold(0, |n, _| async move { Ok(n + 1) })
        .await?)
}

/// Every entry through plain reqwest: the same requests the stream sends (the list path of the
/// spec, the cursor of the page before, the service's default page size), decoded by serde_json.
async fn walk_by_hand(
    http: &reqwest::Client,
    args: &Args,
    path: &str,
) -> Result<u64, Box<dyn std::error::Error>> {
    let mut entries = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut request = http
            .get(format!("{}{path}", args.service.base_url))
            .bearer_auth(&args.service.token);
        if let Some(cursor) = &cursor {
            request = request.query(&[("cursor", cursor)]);
        }
        let body = request.send().await?.error_for_status()?.bytes().await?;
        let page: WorkflowDlqPage = serde_json::from_slice(&body)?;
        entries += page.messages.len() as u64;
        match page.cursor.filter(|c| !c.is_empty()) {
            Some(next) => cursor = Some(next),
            None => return Ok(entries),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let path = courier_models::operation("list_workflow_dlq")
        .expect("an operation of the spec")
        .path;
    let client = messaging::Client::builder()
        .base_url(&args.service.base_url)
        .token(&args.service.token)
        .retry(RetryPolicy::none())
        .build()?;
    let http = reqwest::Client::new();
    let (mut streamed, mut by_hand) = (Vec::new(), Vec::new());
    let mut counted = None;
    for round in 0..args.rounds {
        // Turns alternate which goes first, so neither always meets a warmer cache.
        for first in [round % 2 == 0, round % 2 != 0] {
            let started = Instant::now();
            let entries = if first {
                walk_with_stream(&client).await?
            } else {
                walk_by_hand(&http, &args, path).await?
            };
            let elapsed = started.elapsed();
            if *counted.get_or_insert(entries) != entries {
                return Err(format!("one walk read {entries} entries, another {counted:?}").into());
            }
            if first {
                streamed.push(elapsed);
            } else {
                by_hand.push(elapsed);
            }
        }
    }
    let entries = counted.unwrap_or(0);
    let (streamed, by_hand) = (median(streamed), median(by_hand));
    // One line for the script: entries, seconds of each walk, and the stream's rate over the
    // plain one's.
    println!(
        "{entries} {:.3} {:.3} {:.3}",
        streamed.as_secs_f64(),
        by_hand.as_secs_f64(),
        by_hand.as_secs_f64() / streamed.as_secs_f64()
    );
    Ok(())
}
