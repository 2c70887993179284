//! What the messaging examples share: a client for `COURIER_BASE_URL` (default
//! `http://127.0.0.1:8080`) with `COURIER_SERVICE_TOKEN` (default the `courier serve --demo`
//! token), so each runs against the demo with no setup.

use courier_client::messaging;

pub(crate) fn messaging_client() -> Result<messaging::Client, Box<dyn std::error::Error>> {
    let base_url =
        std::env::var("COURIER_BASE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
    let token =
        std::env::var("COURIER_SERVICE_TOKEN").unwrap_or_else(|_| "demo-service-token".into());
    Ok(messaging::Client::builder()
        .base_url(base_url)
        .token(token)
        .build()?)
}
