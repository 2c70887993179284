//! Retries for requests that are safe to repeat: connection failures, 429 and 5xx, with
//! exponential backoff, jitter and `Retry-After`, within the call's deadline. Rotation is never
//! retried: it is not idempotent.

use crate::failure::is_transient;
pub use crate::failure::{asked_wait, retry_after, retryable_status};
use crate::limits::Limits;
use std::time::{Duration, Instant};

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
    /// How long one call may spend, in all, waiting out 429s that ask for a short wait (at most
    /// `max_backoff`). Those retries do not count against `max_attempts`: a burst of calls over
    /// the per-second limit drains at the limit's pace instead of failing after two retries.
    /// `Duration::ZERO` makes a 429 count as an ordinary attempt.
    pub rate_limit_patience: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            rate_limit_patience: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// Never retry.
    pub fn none() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 1,
            rate_limit_patience: Duration::ZERO,
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

    /// The wait before the next attempt: the service's when it says one, the backoff otherwise;
    /// `None` when the service asks for longer than `max_backoff` (the daily limit asks for
    /// hours), since retrying sooner than asked cannot succeed.
    pub fn wait(&self, retry: u32, asked: Option<Duration>) -> Option<Duration> {
        match asked {
            Some(after) if after > self.max_backoff => None,
            Some(after) => Some(after),
            None => Some(self.backoff(retry)),
        }
    }
}

/// Sends `request`, retrying per `policy` when the operation is idempotent.
///
/// A 429 that asks for a wait within `max_backoff` is waited out (plus a little jitter, so a
/// burst of callers does not come back in lockstep) for as long as `rate_limit_patience`
/// allows, without using up an attempt; every other retryable failure uses one.
pub async fn execute(
    client: &reqwest::Client,
    request: reqwest::Request,
    operation_id: &str,
    policy: &RetryPolicy,
) -> reqwest::Result<reqwest::Response> {
    run(client, request, operation_id, policy, None).await
}

/// [`execute`] within `limits`: each attempt is held to `limits.timeout` (reqwest's total
/// timeout on the request, which goes on counting while the caller reads the body), and the call
/// to `limits.deadline`: no wait starts that would end after it, and each attempt gets at most
/// the time left, so the body of the last one is read before the deadline too.
pub(crate) async fn execute_within(
    client: &reqwest::Client,
    request: reqwest::Request,
    operation_id: &str,
    policy: &RetryPolicy,
    limits: &Limits,
) -> reqwest::Result<reqwest::Response> {
    let deadline = Instant::now() + limits.deadline;
    run(
        client,
        request,
        operation_id,
        policy,
        Some((limits.timeout, deadline)),
    )
    .await
}

/// The loop of [`execute`], with an attempt's timeout and the call's deadline when `bounds`.
async fn run(
    client: &reqwest::Client,
    request: reqwest::Request,
    operation_id: &str,
    policy: &RetryPolicy,
    bounds: Option<(Duration, Instant)>,
) -> reqwest::Result<reqwest::Response> {
    let may_retry = is_idempotent(operation_id);
    let mut attempt = 1;
    let mut waited_on_limits = Duration::ZERO;
    let mut pending = request;
    // Whether waiting `wait` leaves time for another attempt before the deadline.
    let fits = |wait: Duration| bounds.is_none_or(|(_, deadline)| Instant::now() + wait < deadline);
    loop {
        if let Some((timeout, deadline)) = bounds {
            let left = deadline.saturating_duration_since(Instant::now());
            *pending.timeout_mut() = Some(timeout.min(left));
        }
        let patience_left = waited_on_limits < policy.rate_limit_patience;
        let spare = if may_retry && (attempt < policy.max_attempts || patience_left) {
            pending.try_clone()
        } else {
            None
        };
        let result = client.execute(pending).await;
        let Some(next) = spare else { return result };
        let wait = match &result {
            Ok(response) if response.status() == reqwest::StatusCode::TOO_MANY_REQUESTS => {
                let asked = asked_wait(response.headers(), std::time::SystemTime::now());
                match asked.filter(|after| *after <= policy.max_backoff) {
                    Some(after) if waited_on_limits + after <= policy.rate_limit_patience => {
                        let wait = with_spread(after);
                        if !fits(wait) {
                            return result;
                        }
                        waited_on_limits += wait;
                        tokio::time::sleep(wait).await;
                        pending = next;
                        continue;
                    }
                    _ if attempt < policy.max_attempts => match policy.wait(attempt - 1, asked) {
                        Some(wait) => wait,
                        None => return result,
                    },
                    _ => return result,
                }
            }
            _ if attempt >= policy.max_attempts => return result,
            Ok(response) if retryable_status(response.status()) => {
                let asked = asked_wait(response.headers(), std::time::SystemTime::now());
                match policy.wait(attempt - 1, asked) {
                    Some(wait) => wait,
                    None => return result,
                }
            }
            Ok(_) => return result,
            Err(error) if is_transient(error) => policy.backoff(attempt - 1),
            Err(_) => return result,
        };
        if !fits(wait) {
            return result;
        }
        tokio::time::sleep(wait).await;
        attempt += 1;
        pending = next;
    }
}

/// `after` plus up to a quarter more (and at least 10 ms), at random: callers refused in the
/// same window come back spread over the next one.
fn with_spread(after: Duration) -> Duration {
    let spread = (after / 4).max(Duration::from_millis(10));
    after + spread.mul_f64(rand::random::<f64>())
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
            ..RetryPolicy::default()
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
            None,
            "asked for longer than max_backoff: no retry"
        );
        assert_eq!(
            policy.wait(0, Some(Duration::from_millis(10))),
            Some(Duration::from_millis(10))
        );
    }

    #[test]
    fn a_429_says_how_long_to_wait_with_either_set_of_headers() {
        use reqwest::header::{HeaderMap, HeaderValue};
        let now = std::time::UNIX_EPOCH + Duration::from_secs(1_000);
        let headers = |pairs: &[(&'static str, u64)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.insert(*name, HeaderValue::from(*value));
            }
            map
        };
        assert_eq!(
            asked_wait(
                &headers(&[("retry-after", 2), ("burst-ratelimit-reset", 9_999)]),
                now
            ),
            Some(Duration::from_secs(2))
        );
        let per_second = headers(&[
            ("burst-ratelimit-remaining", 0),
            ("burst-ratelimit-reset", 1_001),
        ]);
        assert_eq!(asked_wait(&per_second, now), Some(Duration::from_secs(1)));
        let daily = headers(&[
            ("burst-ratelimit-remaining", 5),
            ("ratelimit-remaining", 0),
            ("ratelimit-reset", 1_000 + 7_200),
        ]);
        assert_eq!(asked_wait(&daily, now), Some(Duration::from_secs(7_200)));
        assert_eq!(
            RetryPolicy::default().wait(0, asked_wait(&daily, now)),
            None
        );
    }

    #[test]
    fn only_429_and_5xx_but_501_are_retryable() {
        assert!(retryable_status(reqwest::StatusCode::TOO_MANY_REQUESTS));
        assert!(retryable_status(reqwest::StatusCode::SERVICE_UNAVAILABLE));
        assert!(!retryable_status(reqwest::StatusCode::NOT_FOUND));
        assert!(!retryable_status(reqwest::StatusCode::BAD_REQUEST));
        assert!(!retryable_status(reqwest::StatusCode::NOT_IMPLEMENTED));
    }
}
