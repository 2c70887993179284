//! Deletes every failed run matching a label (or the whole DLQ without one), batch by batch,
//! printing progress: `cargo run -p courier-client --example drain_dlq -- [LABEL]`.
//!
//! Talks to `COURIER_BASE_URL` (default `http://127.0.0.1:8080`) with `COURIER_SERVICE_TOKEN`
//! (default the `courier serve --demo` token).

use courier_client::{DlqFilter, Paging};

mod demo;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = demo::messaging_client()?;

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
