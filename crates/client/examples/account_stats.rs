//! Reads the account's usage statistics for a period (default `1h`):
//! `cargo run -p courier-client --example account_stats -- [PERIOD]`.
//!
//! Talks to `COURIER_MANAGEMENT_URL` (default `http://127.0.0.1:8080`) with `COURIER_CUSTOMER_ID`
//! and `COURIER_MANAGEMENT_KEY` (default the `courier serve --demo` credentials).

use courier_client::management;
use courier_client::models::StatsPeriod;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let env =
        |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.to_owned());
    let client = management::Client::builder()
        .base_url(env("COURIER_MANAGEMENT_URL", "http://127.0.0.1:8080"))
        .credentials(
            env("COURIER_CUSTOMER_ID", "demo@courier.dev"),
            env("COURIER_MANAGEMENT_KEY", "demo-management-key"),
        )
        .build()?;
    let period: StatsPeriod = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "1h".into())
        .parse()
        .map_err(|e| format!("period: {e}"))?;

    let stats = client
        .get_account_stats()
        .period(period)
        .send()
        .await?
        .into_inner();
    let total =
        |points: &[courier_client::models::DataPoint]| points.iter().map(|p| p.y).sum::<f64>();
    println!("DLQ now holds {} failed runs", stats.dlq_message_count);
    println!(
        "requests in the last {period}: {}",
        total(&stats.daily_used)
    );
    println!(
        "workflow requests in the last {period}: {}",
        total(&stats.daily_used_workflow)
    );
    for series in stats
        .daily_svc_messages
        .iter()
        .chain(&stats.daily_workflow_messages)
    {
        println!("  {:<14} {}", series.id, total(&series.data_points));
    }
    if let (Some(first), Some(last)) = (stats.daily_used.first(), stats.daily_used.last()) {
        println!(
            "{} points from {} to {}",
            stats.daily_used.len(),
            first.x,
            last.x
        );
    }
    let today: f64 = stats.daily_requests.iter().map(|d| d.y).sum();
    println!(
        "requests this month: {today} over {} days ({} … {})",
        stats.days.len(),
        stats.days[0],
        stats.days[stats.days.len() - 1]
    );
    Ok(())
}
