//! Lists failed workflow runs, following the cursor across pages, with filters from the command
//! line: `cargo run -p courier-client --example list_failed_runs -- [LABEL] [FAILURE_STATE]`.
//!
//! Talks to `COURIER_BASE_URL` (default `http://127.0.0.1:8080`) with `COURIER_SERVICE_TOKEN`
//! (default the `courier serve --demo` token).

use courier_client::DlqFilter;
use courier_client::models::FailureFunctionState;
use futures::TryStreamExt;

mod demo;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = demo::messaging_client()?;

    let mut args = std::env::args().skip(1);
    let mut filter = DlqFilter::new();
    if let Some(label) = args.next() {
        filter = filter.label(label);
    }
    if let Some(state) = args.next() {
        filter = filter.failure_function_state(
            state
                .parse::<FailureFunctionState>()
                .map_err(|e| format!("{state}: {e}"))?,
        );
    }

    let runs: Vec<_> = client.dlq_stream(filter).try_collect().await?;
    println!(
        "{:<22} {:<16} {:<6} {:<22} url",
        "dlqId", "run", "status", "failure function"
    );
    for run in &runs {
        let state = run
            .failure_function_state
            .map(|s| s.to_string())
            .unwrap_or_else(|| "-".into());
        let status = run
            .response_status
            .map(|s| s.to_string())
            .unwrap_or_else(|| "-".into());
        println!(
            "{:<22} {:<16} {:<6} {:<22} {}",
            run.dlq_id, run.workflow_run_id, status, state, run.url
        );
    }
    println!("{} failed runs", runs.len());
    Ok(())
}
