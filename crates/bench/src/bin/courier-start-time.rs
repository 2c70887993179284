//! How long a contract test waits for a fresh service: `TestService::start()` (a new data
//! directory, the store created, the listener bound) until its first request is answered, in
//! process, and the CPU time the process spent in that window. Each service is stopped before
//! the next starts, so one's shutdown is not counted in the next one's start. `bench/run.sh`
//! writes the percentiles to BENCHMARKS.md.

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

/// The time all threads of this process have run on a CPU (the first field of each thread's
/// `/proc/self/task/*/schedstat`, in ns). On a shared machine the wall time of a start includes
/// waiting for a core; the CPU time spent in the same window does not.
fn cpu_time() -> Duration {
    let threads = std::fs::read_dir("/proc/self/task").into_iter().flatten();
    Duration::from_nanos(
        threads
            .flatten()
            .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
            .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
            .sum(),
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    // One client for all starts, so its own set-up is not counted; each service listens on a
    // new port, so every first request opens a fresh connection, as a test's does.
    let http = reqwest::Client::new();
    let mut times = Vec::with_capacity(args.starts);
    let mut cpu = Vec::with_capacity(args.starts);
    for _ in 0..args.starts {
        let cpu_before = cpu_time();
        let started = Instant::now();
        let mut service = TestService::start().await;
        let answer = http
            .get(format!("{}/health", service.base_url()))
            .send()
            .await?;
        assert!(answer.status().is_success(), "{}", answer.status());
        times.push(started.elapsed());
        cpu.push(cpu_time().saturating_sub(cpu_before));
        // Stopped before the next start, so its shutdown does not run in the next one's window.
        service.stop().await;
        drop(service);
    }
    times.sort();
    cpu.sort();
    // One line for bench/run.sh: p50, p99 and max in microseconds, and the p50 of the CPU time
    // the process spent in the same window.
    println!(
        "{:.0} {:.0} {:.0} {:.0}",
        percentile(&times, 0.5).as_secs_f64() * 1e6,
        percentile(&times, 0.99).as_secs_f64() * 1e6,
        times[times.len() - 1].as_secs_f64() * 1e6,
        percentile(&cpu, 0.5).as_secs_f64() * 1e6,
    );
    Ok(())
}
