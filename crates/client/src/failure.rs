//! What a failed exchange means, owned here and read by the retries and the errors alike:
//! whether a status or a transport failure is worth another attempt, and how long a 429 asks
//! to wait.

use std::error::Error as StdError;
use std::time::Duration;

/// Whether a status is worth another attempt: 429 and 5xx, except 501 (the implementation
/// does not provide the operation, and will not by the next attempt).
pub fn retryable_status(status: reqwest::StatusCode) -> bool {
    status == reqwest::StatusCode::TOO_MANY_REQUESTS
        || (status.is_server_error() && status != reqwest::StatusCode::NOT_IMPLEMENTED)
}

/// `Retry-After` in seconds (the HTTP-date form is not used by the interface).
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    number(headers, reqwest::header::RETRY_AFTER.as_str()).map(Duration::from_secs)
}

fn number(headers: &reqwest::header::HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// How long a 429 asks to wait (`docs/decisions.md#d18-rate-limit-headers`): `Retry-After`, else
/// the end of the exhausted window, the daily one (`RateLimit-*`, present only when the daily limit
/// refused) before the per-second one (`Burst-RateLimit-*`), whose `*-Reset` are Unix seconds.
pub fn asked_wait(
    headers: &reqwest::header::HeaderMap,
    now: std::time::SystemTime,
) -> Option<Duration> {
    if let Some(after) = retry_after(headers) {
        return Some(after);
    }
    let now = now.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    let until =
        |reset: &str| number(headers, reset).map(|at| Duration::from_secs(at.saturating_sub(now)));
    if number(headers, "ratelimit-remaining") == Some(0) {
        return until("ratelimit-reset");
    }
    if number(headers, "burst-ratelimit-remaining") == Some(0) {
        return until("burst-ratelimit-reset");
    }
    None
}

/// Whether a transport failure may go away by itself: a refused or reset connection or a
/// timeout, but not a malformed address (a builder error) and not a TLS failure such as an
/// untrusted certificate, which rustls reports as an `InvalidData` I/O error under the
/// connect error.
pub(crate) fn is_transient(error: &reqwest::Error) -> bool {
    if error.is_builder() {
        return false;
    }
    if !(error.is_connect() || error.is_timeout()) {
        return false;
    }
    let mut cause: Option<&(dyn StdError + 'static)> = error.source();
    while let Some(inner) = cause {
        // io::Error's own source() skips the error it wraps, so look inside by hand.
        let mut io = inner.downcast_ref::<std::io::Error>();
        while let Some(current) = io {
            if current.kind() == std::io::ErrorKind::InvalidData {
                return false;
            }
            io = current
                .get_ref()
                .and_then(|wrapped| wrapped.downcast_ref::<std::io::Error>());
        }
        cause = inner.source();
    }
    true
}
