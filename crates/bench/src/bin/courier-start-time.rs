//! How long a contract test waits for a fresh service: `TestService::start()` (a new data
//! directory, the store created, the listener bound) until its first request is answered, in
//! process. `bench/run.sh` writes the percentiles to BENCHMARKS.md.

use clap::Parser;
use courier_service::testing::TestService;
use std::time::{Duration, Instant};

#[derive(Parser)]
struct Args {
    /// Services started, one after another.
    #[arg(long, default_value_t = 200)]
    starts: usize,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    // One client for all starts, so its own set-up is not counted; each service listens on a
    // new port, so every first request opens a fresh connection, as a test's does.
    let http = reqwest::Client::new();
    let mut times = Vec::with_capacity(args.starts);
    for _ in 0..args.starts {
        let started = Instant::now();
        let service = TestService::start().await;
        let answer = http
            .get(format!("{}/health", service.base_url()))
            .send()
            .await?;
        assert!(answer.status().is_success(), "{}", answer.status());
        times.push(started.elapsed());
        drop(service);
    }
    times.sort();
    // One line for bench/run.sh: p50, p99 and max in microseconds.
    println!(
        "{:.0} {:.0} {:.0}",
        percentile(&times, 0.5).as_secs_f64() * 1e6,
        percentile(&times, 0.99).as_secs_f64() * 1e6,
        times[times.len() - 1].as_secs_f64() * 1e6,
    );
    Ok(())
}
