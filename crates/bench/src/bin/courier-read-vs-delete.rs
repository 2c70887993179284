//! Reads every entry matching a filter page by page through the list API, then deletes the same
//! entries with the bulk delete, through one courier-client (one connection pool) and in one
//! process: the two rates `bench/run.sh` compares (its target: a bulk delete should remove
//! entries at least twice as fast as a client can read them).

use clap::Parser;
use courier_bench::ServiceArgs;
use courier_client::{DlqFilter, Paging, RetryPolicy, messaging};
use futures::TryStreamExt;
use std::time::Instant;

#[derive(Parser)]
struct Args {
    #[command(flatten)]
    service: ServiceArgs,
    /// The `flowControlKey` whose entries are read, then deleted.
    #[arg(long)]
    flow_control_key: String,
    /// Entries per list page (the list's maximum is 100).
    #[arg(long, default_value_t = 100)]
    read_count: u64,
    /// Entries per bulk delete request (the maximum is 1000).
    #[arg(long, default_value_t = 1000)]
    delete_count: u64,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let client = messaging::Client::builder()
        .base_url(&args.service.base_url)
        .token(&args.service.token)
        .retry(RetryPolicy::none())
        .build()?;
    let filter = DlqFilter::new().flow_control_key(args.flow_control_key.as_str());

    let started = Instant::now();
    let read: u64 = client
        .dlq_stream_paged(filter.clone(), Paging::new().count(args.read_count))
        .try_fold(0, |n, _| async move { Ok(n + 1) })
        .await?;
    let read_seconds = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let deleted = client
        .delete_all_matching_paged(&filter, &Paging::new().count(args.delete_count), |_| {})
        .await?;
    let delete_seconds = started.elapsed().as_secs_f64();

    if deleted != read {
        return Err(format!("read {read} entries but deleted {deleted}").into());
    }
    let left: u64 = client
        .dlq_stream(filter)
        .try_fold(0, |n, _| async move { Ok(n + 1) })
        .await?;
    if left != 0 {
        return Err(format!("{left} matching entries are left after the bulk delete").into());
    }
    // entries, read seconds, deleted, delete seconds: one line for the script.
    println!("{read} {read_seconds:.3} {deleted} {delete_seconds:.3}");
    Ok(())
}
