//! What a test suite waits for: one client making one request at a time, as a contract test
//! does, against courier or against the limit serving the same bytes (courier-anchor). Times a
//! get-one, a list of 100 read from the store (a `fromDate` no request repeats), a delete of one
//! entry and a bulk delete of 10 by ids, over one kept-alive connection, and prints for each
//! `name p50_us p99_us requests`. `bench/run.sh` writes them to BENCHMARKS.md.
//!
//! Deletes need entries that exist: against courier, their ids are read from the service's own
//! list first (so the store loses them: run it on a copy); against the limit, which answers
//! every delete with courier's saved answer, the ids are made up.

use clap::Parser;
use std::time::{Duration, Instant};

#[derive(Parser)]
struct Args {
    /// courier's or the limit's address, e.g. `http://127.0.0.1:8080`.
    #[arg(long)]
    base_url: String,
    #[arg(long, default_value = "bench-service-token")]
    token: String,
    /// Ids to get, one a line (`courier-fill --ids-file`); the limit has a file for each.
    #[arg(long)]
    ids: std::path::PathBuf,
    /// Get-one and list requests each.
    #[arg(long, default_value_t = 2000)]
    requests: usize,
    /// Single deletes; bulk deletes are a tenth as many, of 10 ids each.
    #[arg(long, default_value_t = 1000)]
    deletes: usize,
    /// The target is the limit: delete made-up ids instead of listed ones.
    #[arg(long)]
    limit: bool,
}

/// One timed request; any answer but a 2xx ends the run.
async fn timed(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    token: &str,
) -> Result<Duration, Box<dyn std::error::Error>> {
    let started = Instant::now();
    let response = client
        .request(method.clone(), url)
        .bearer_auth(token)
        .send()
        .await?;
    let status = response.status();
    response.bytes().await?;
    let elapsed = started.elapsed();
    if !status.is_success() {
        return Err(format!("{method} {url} answered {status}").into());
    }
    Ok(elapsed)
}

/// `name p50 p99 n`, in microseconds.
fn summary(name: &str, mut times: Vec<Duration>) -> String {
    times.sort();
    let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize].as_micros();
    format!("{name} {} {} {}", at(0.5), at(0.99), times.len())
}

/// Ids of entries the service lists, `wanted` of them at most, page by page.
async fn listed_ids(
    client: &reqwest::Client,
    args: &Args,
    wanted: usize,
) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let mut ids = Vec::with_capacity(wanted);
    let mut cursor: Option<String> = None;
    while ids.len() < wanted {
        let mut url = format!("{}/v2/workflows/dlq?count=100", args.base_url);
        if let Some(cursor) = &cursor {
            url.push_str(&format!("&cursor={cursor}"));
        }
        let page: serde_json::Value = client
            .get(&url)
            .bearer_auth(&args.token)
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        let messages = page["messages"]
            .as_array()
            .ok_or("a page without messages")?;
        ids.extend(
            messages
                .iter()
                .filter_map(|message| message["dlqId"].as_str().map(str::to_owned)),
        );
        match page["cursor"].as_str() {
            Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
            _ => break,
        }
    }
    if ids.len() < wanted {
        return Err(format!("the service lists {} entries, {wanted} wanted", ids.len()).into());
    }
    ids.truncate(wanted);
    Ok(ids)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let got: Vec<String> = std::fs::read_to_string(&args.ids)?
        .lines()
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect();
    if got.is_empty() {
        return Err(format!("no ids in {}", args.ids.display()).into());
    }
    let client = reqwest::Client::builder().tcp_nodelay(true).build()?;
    let bulk = args.deletes / 10;
    let doomed = if args.limit {
        (0..args.deletes + bulk * 10)
            .map(|n| format!("made-up-{n}"))
            .collect()
    } else {
        // Entries the gets and lists below do not read: they are deleted last.
        let mut listed = listed_ids(&client, &args, args.deletes + bulk * 10 + got.len()).await?;
        listed.retain(|id| !got.contains(id));
        listed.truncate(args.deletes + bulk * 10);
        listed
    };
    let base = &args.base_url;
    // A first request of each kind, untimed, so that no connection set-up is counted.
    timed(
        &client,
        reqwest::Method::GET,
        &format!("{base}/v2/workflows/dlq/{}", got[0]),
        &args.token,
    )
    .await?;
    let mut gets = Vec::with_capacity(args.requests);
    for n in 0..args.requests {
        let url = format!("{base}/v2/workflows/dlq/{}", got[n % got.len()]);
        gets.push(timed(&client, reqwest::Method::GET, &url, &args.token).await?);
    }
    let mut lists = Vec::with_capacity(args.requests);
    for n in 0..args.requests {
        // Far below every entry's createdAt, and never repeated: no kept page answers it.
        let url = format!("{base}/v2/workflows/dlq?count=100&fromDate={}", n + 1);
        lists.push(timed(&client, reqwest::Method::GET, &url, &args.token).await?);
    }
    let mut deletes = Vec::with_capacity(args.deletes);
    for id in &doomed[..args.deletes] {
        let url = format!("{base}/v2/workflows/dlq/{id}");
        deletes.push(timed(&client, reqwest::Method::DELETE, &url, &args.token).await?);
    }
    let mut bulks = Vec::with_capacity(bulk);
    for ten in doomed[args.deletes..].chunks(10) {
        let query: Vec<String> = ten.iter().map(|id| format!("dlqIds={id}")).collect();
        let url = format!("{base}/v2/workflows/dlq?{}", query.join("&"));
        bulks.push(timed(&client, reqwest::Method::DELETE, &url, &args.token).await?);
    }
    println!("{}", summary("get-one", gets));
    println!("{}", summary("list-100", lists));
    println!("{}", summary("delete", deletes));
    println!("{}", summary("bulk-delete-10", bulks));
    Ok(())
}
