//! Retries for requests that are safe to repeat: connection failures, 429 and 5xx, with
//! exponential backoff, jitter and `Retry-After`. Rotation is never retried: it is not idempotent.

use std::time::Duration;

/// Whether an operation may be sent twice, from the spec's table of operations
/// (`x-courier-idempotent`, else the method's rule). `operation_id` is as progenitor names it in
/// `OperationInfo::operation_id`, the snake_case of the operationId; an operation the table
/// does not know is never retried.
pub fn is_idempotent(operation_id: &str) -> bool {
    courier_models::operation(operation_id).is_some_and(|operation| operation.idempotent)
}

/// How often and how patiently to retry. On by default with small bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included; 1 disables retries.
    pub max_attempts: u32,
    /// Backoff before the first retry; doubles each time.
    pub initial_backoff: Duration,
    /// Upper bound of one backoff, and of a `Retry-After` the client is willing to honour.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// Never retry.
    pub fn none() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        }
    }

    /// Backoff before retry number `retry` (0-based): exponential, capped, with "equal jitter"
    /// (half fixed, half random) so that many clients do not retry in lockstep.
    pub fn backoff(&self, retry: u32) -> Duration {
        let exponential = self
            .initial_backoff
            .saturating_mul(1u32.checked_shl(retry).unwrap_or(u32::MAX));
        let capped = exponential.min(self.max_backoff);
        let half = capped / 2;
        half + half.mul_f64(rand::random::<f64>())
    }

    /// The wait before the next attempt: the server's `Retry-After` when it gives one (capped),
    /// the backoff otherwise.
    pub fn wait(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        match retry_after {
            Some(after) => after.min(self.max_backoff),
            None => self.backoff(retry),
        }
    }
}

/// Whether a status is worth another attempt.
pub fn retryable_status(status: reqwest::StatusCode) -> bool {
    status == reqwest::StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

/// `Retry-After` in seconds (the HTTP-date form is not used by the interface).
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// Sends `request`, retrying per `policy` when the operation is idempotent.
pub async fn execute(
    client: &reqwest::Client,
    request: reqwest::Request,
    operation_id: &str,
    policy: &RetryPolicy,
) -> reqwest::Result<reqwest::Response> {
    let may_retry = is_idempotent(operation_id);
    let mut attempt = 1;
    let mut pending = request;
    loop {
        let spare = if may_retry && attempt < policy.max_attempts {
            pending.try_clone()
        } else {
            None
        };
        let result = client.execute(pending).await;
        let Some(next) = spare else { return result };
        let wait = match &result {
            Ok(response) if retryable_status(response.status()) => {
                policy.wait(attempt - 1, retry_after(response.headers()))
            }
            Ok(_) => return result,
            Err(error) if crate::error::is_transient(error) => policy.backoff(attempt - 1),
            Err(_) => return result,
        };
        tokio::time::sleep(wait).await;
        attempt += 1;
        pending = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_is_capped_and_jittered_within_bounds() {
        let policy = RetryPolicy {
            max_attempts: 5,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(350),
        };
        for _ in 0..50 {
            let first = policy.backoff(0);
            assert!(
                first >= Duration::from_millis(50) && first <= Duration::from_millis(100),
                "{first:?}"
            );
            let third = policy.backoff(2);
            assert!(
                third >= Duration::from_millis(175) && third <= Duration::from_millis(350),
                "{third:?}"
            );
            assert!(policy.backoff(40) <= Duration::from_millis(350));
        }
        assert_eq!(
            policy.wait(0, Some(Duration::from_secs(1))),
            Duration::from_millis(350)
        );
        assert_eq!(
            policy.wait(0, Some(Duration::from_millis(10))),
            Duration::from_millis(10)
        );
    }

    #[test]
    fn only_429_and_5xx_are_retryable() {
        assert!(retryable_status(reqwest::StatusCode::TOO_MANY_REQUESTS));
        assert!(retryable_status(reqwest::StatusCode::SERVICE_UNAVAILABLE));
        assert!(!retryable_status(reqwest::StatusCode::NOT_FOUND));
        assert!(!retryable_status(reqwest::StatusCode::BAD_REQUEST));
    }
}
