//! Deletes every failed run matching a label (or the whole DLQ without one), batch by batch,
//! printing progress: `cargo run -p courier-client --example drain_dlq -- [LABEL]`.
//!
//! Talks to `COURIER_BASE_URL` (default `http://127.0.0.1:8080`) with `COURIER_SERVICE_TOKEN`
//! (default the `courier serve --demo` token).

use courier_client::{DlqFilter, Paging, messaging};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base_url =
        std::env::var("COURIER_BASE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
    let token =
        std::env::var("COURIER_SERVICE_TOKEN").unwrap_or_else(|_| "demo-service-token".into());
    let client = messaging::Client::builder()
        .base_url(base_url)
        .token(token)
        .build()?;

    let mut filter = DlqFilter::new();
    match std::env::args().nth(1) {
        Some(label) => {
            println!("deleting failed runs labelled {label}");
            filter = filter.label(label);
        }
        None => println!("deleting every failed run"),
    }
    let deleted = client
        .delete_all_matching_paged(&filter, &Paging::new().count(25), |so_far| {
            println!("  {so_far} deleted so far")
        })
        .await?;
    println!("done: {deleted} deleted");
    Ok(())
}
