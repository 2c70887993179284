//! The account's `max_requests_per_second`, enforced on the interface with 429 and the
//! `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `Retry-After` headers.
//!
//! A fixed one-second window: simple to reason about for callers (`RateLimit-Reset` is the time
//! to the next second), and the limit is re-read from the account on every request, so a
//! change through the admin API applies at once.

use std::sync::Mutex;

/// The outcome of one request against the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u64,
    pub remaining: u64,
    /// Milliseconds until the window resets.
    pub reset_ms: u64,
}

impl Decision {
    /// `RateLimit-Reset` and `Retry-After` in whole seconds, rounded up (at least 1 when
    /// refused, so a client never retries within the same window).
    pub fn reset_seconds(&self) -> u64 {
        self.reset_ms.div_ceil(1000).max(1)
    }
}

#[derive(Default)]
pub struct RateLimiter {
    /// (window start in ms, requests counted in it)
    window: Mutex<(i64, u64)>,
}

impl RateLimiter {
    /// Counts one request at `now_ms` against `limit` requests a second.
    pub fn check(&self, limit: u64, now_ms: i64) -> Decision {
        let start = now_ms - now_ms.rem_euclid(1000);
        let reset_ms = (start + 1000 - now_ms) as u64;
        let mut window = self
            .window
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if window.0 != start {
            *window = (start, 0);
        }
        if window.1 >= limit {
            return Decision {
                allowed: false,
                limit,
                remaining: 0,
                reset_ms,
            };
        }
        window.1 += 1;
        Decision {
            allowed: true,
            limit,
            remaining: limit - window.1,
            reset_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_admits_the_limit_then_refuses_until_the_next_second() {
        let limiter = RateLimiter::default();
        let second = 1_700_000_000_000;
        for n in 0..3 {
            let decision = limiter.check(3, second + 10 + n);
            assert!(decision.allowed);
            assert_eq!(decision.remaining, 2 - n as u64);
        }
        let refused = limiter.check(3, second + 400);
        assert_eq!(
            (
                refused.allowed,
                refused.remaining,
                refused.reset_ms,
                refused.reset_seconds()
            ),
            (false, 0, 600, 1)
        );
        assert!(limiter.check(3, second + 1000).allowed, "a new window");
        assert!(
            !limiter.check(0, second + 2000).allowed,
            "a zero limit refuses everything"
        );
    }
}
