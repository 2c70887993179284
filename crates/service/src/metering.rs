//! What an interface request costs the account: the usage counters of the statistics, counted
//! for authenticated, admitted requests only, with the bytes actually read and sent.
//!
//! Anonymous requests must never spend the account's usage: the daily limiter is seeded from
//! these counters at start, so counting a stranger's 404s would let anyone lock the account out.
//! A declared `Content-Length` is never trusted either: only bytes that crossed the socket count.

use crate::api::Service;
use crate::stats;
use crate::time::now_ms;
use axum::http::StatusCode;
use axum::response::Response;
use http_body_util::BodyExt as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Marks the response to a request whose credentials were right and which the rate limit
/// admitted; set by the admission middleware, read by [`meter`]. Only such requests are counted.
#[derive(Clone, Copy, Debug)]
pub struct Admitted;

/// Meters every request: the usage counters (requests now, bandwidth once the response body is
/// sent) and a debug log line. Only the path is logged: the query may carry a `service_token`.
pub async fn meter(
    axum::extract::State(service): axum::extract::State<Arc<Service>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let started = std::time::Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let bytes_read = Arc::new(AtomicU64::new(0));
    let request = {
        let bytes_read = bytes_read.clone();
        request.map(move |body| {
            axum::body::Body::new(body.map_frame(move |frame| {
                if let Some(data) = frame.data_ref() {
                    bytes_read.fetch_add(data.len() as u64, Ordering::Relaxed);
                }
                frame
            }))
        })
    };
    let response = next.run(request).await;
    let status = response.status();
    tracing::debug!(%method, %path, status = status.as_u16(), micros = started.elapsed().as_micros() as u64, "request");
    let counted = path.starts_with("/v2/")
        && status != StatusCode::TOO_MANY_REQUESTS
        && response.extensions().get::<Admitted>().is_some();
    if !counted {
        return response;
    }
    let now = now_ms();
    let usage = service.usage();
    usage.add(stats::REQUESTS, now, 1.0);
    if path.starts_with("/v2/workflows") || path.starts_with("/v2/dlq") {
        usage.add(stats::WORKFLOW_REQUESTS, now, 1.0);
    }
    let mut bandwidth = Bandwidth {
        service,
        bytes_read,
        bytes_sent: 0,
    };
    response.map(move |body| {
        axum::body::Body::new(body.map_frame(move |frame| {
            if let Some(data) = frame.data_ref() {
                bandwidth.sent(data.len());
            }
            frame
        }))
    })
}

/// The bytes of one metered exchange, added to the `bandwidth` counter when the response body
/// is dropped: after its last byte was written, or when the client went away mid-way.
struct Bandwidth {
    service: Arc<Service>,
    bytes_read: Arc<AtomicU64>,
    bytes_sent: u64,
}

impl Bandwidth {
    // A method, so that the closure calling it owns the whole value and drops it with the body.
    fn sent(&mut self, bytes: usize) {
        self.bytes_sent += bytes as u64;
    }
}

impl Drop for Bandwidth {
    fn drop(&mut self) {
        let total = self.bytes_read.load(Ordering::Relaxed) + self.bytes_sent;
        self.service
            .usage()
            .add(stats::BANDWIDTH, now_ms(), total as f64);
    }
}
