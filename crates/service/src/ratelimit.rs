//! The account's two request limits (`docs/decisions.md#d18-rate-limit-headers`), as the hosted
//! service signals them: `max_requests_per_second` (a fixed one-second window; `Burst-RateLimit-*`
//! headers) and `max_requests_per_day_hard` (per UTC day; `RateLimit-*` headers).
//!
//! The official clients tell the two apart by the headers of a 429: `RateLimit-Limit` present
//! means the daily limit, so a per-second refusal never carries a `RateLimit-*` header. Limits
//! are re-read from the account on every request, so a change through the admin API applies at
//! once. The daily count starts from what the store recorded today, so a restart does not reset
//! it.

use std::sync::Mutex;

const MS_PER_DAY: i64 = 86_400_000;

/// Which limit refused a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    PerSecond,
    Daily,
}

/// One window's state as the headers report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub limit: u64,
    pub remaining: u64,
    /// Unix time, in milliseconds, when the window ends.
    pub reset_at_ms: i64,
}

impl Window {
    /// `*-Reset`: Unix seconds of the window's end, rounded up.
    pub fn reset_unix_seconds(&self) -> u64 {
        u64::try_from(self.reset_at_ms.max(0))
            .unwrap_or(0)
            .div_ceil(1000)
    }

    /// `Retry-After`: whole seconds from `now_ms` to the window's end, at least 1.
    pub fn retry_after_seconds(&self, now_ms: i64) -> u64 {
        u64::try_from((self.reset_at_ms - now_ms).max(0))
            .unwrap_or(0)
            .div_ceil(1000)
            .max(1)
    }
}

/// The outcome of one request against both limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub refused: Option<Refusal>,
    pub per_second: Window,
    pub daily: Window,
}

impl Decision {
    pub fn allowed(&self) -> bool {
        self.refused.is_none()
    }
}

#[derive(Default)]
pub struct RateLimiter {
    /// (window start in ms, requests counted in it)
    second: Mutex<(i64, u64)>,
    /// (UTC day number, requests counted on it)
    day: Mutex<(i64, u64)>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl RateLimiter {
    /// A limiter whose day starts with `counted` requests already made on the day of `now_ms`.
    pub fn starting_with(counted_today: u64, now_ms: i64) -> RateLimiter {
        RateLimiter {
            second: Mutex::default(),
            day: Mutex::new((now_ms.div_euclid(MS_PER_DAY), counted_today)),
        }
    }

    /// Counts one request at `now_ms` against `per_second` and `per_day`; a refused request
    /// counts against neither.
    pub fn check(&self, per_second: u64, per_day: u64, now_ms: i64) -> Decision {
        let windows = Windows::at(now_ms);
        let mut second = lock(&self.second);
        let mut day = lock(&self.day);
        if second.0 != windows.second_start {
            *second = (windows.second_start, 0);
        }
        if day.0 != windows.day {
            *day = (windows.day, 0);
        }
        let refused = if day.1 >= per_day {
            Some(Refusal::Daily)
        } else if second.1 >= per_second {
            Some(Refusal::PerSecond)
        } else {
            second.1 += 1;
            day.1 += 1;
            None
        };
        windows.decision(per_second, per_day, second.1, day.1, refused)
    }
}

/// The two windows a request at some instant falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Windows {
    /// Unix milliseconds of the second's start.
    pub second_start: i64,
    /// Days since the Unix epoch (UTC).
    pub day: i64,
}

impl Windows {
    pub fn at(now_ms: i64) -> Windows {
        Windows {
            second_start: now_ms - now_ms.rem_euclid(1000),
            day: now_ms.div_euclid(MS_PER_DAY),
        }
    }

    /// The decision, given the requests counted in each window after this one (a refused
    /// request is not counted): what the in-memory limiter and a shared store's count both
    /// report.
    pub fn decision(
        self,
        per_second: u64,
        per_day: u64,
        second_used: u64,
        day_used: u64,
        refused: Option<Refusal>,
    ) -> Decision {
        Decision {
            refused,
            per_second: Window {
                limit: per_second,
                remaining: per_second.saturating_sub(second_used),
                reset_at_ms: self.second_start + 1000,
            },
            daily: Window {
                limit: per_day,
                remaining: per_day.saturating_sub(day_used),
                reset_at_ms: (self.day + 1) * MS_PER_DAY,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 1_700_006_400_000 - 1_700_006_400_000 % MS_PER_DAY;

    #[test]
    fn a_second_admits_its_limit_then_refuses_until_the_next_second() {
        let limiter = RateLimiter::default();
        let second = DAY + 5_000;
        for n in 0..3 {
            let decision = limiter.check(3, 1000, second + 10 + n);
            assert!(decision.allowed());
            assert_eq!(decision.per_second.remaining, 2 - n as u64);
        }
        let refused = limiter.check(3, 1000, second + 400);
        assert_eq!(refused.refused, Some(Refusal::PerSecond));
        assert_eq!(refused.per_second.retry_after_seconds(second + 400), 1);
        assert_eq!(
            refused.per_second.reset_unix_seconds(),
            ((second + 1000) / 1000) as u64
        );
        assert!(
            limiter.check(3, 1000, second + 1000).allowed(),
            "a new window"
        );
        assert!(
            !limiter.check(0, 1000, second + 2000).allowed(),
            "a zero limit refuses everything"
        );
    }

    #[test]
    fn the_daily_limit_holds_until_utc_midnight_and_counts_what_came_before() {
        let limiter = RateLimiter::starting_with(8, DAY + 1);
        let noon = DAY + MS_PER_DAY / 2;
        assert!(limiter.check(100, 10, noon).allowed());
        assert!(limiter.check(100, 10, noon + 1).allowed());
        let refused = limiter.check(100, 10, noon + 2);
        assert_eq!(refused.refused, Some(Refusal::Daily));
        assert_eq!(refused.daily.remaining, 0);
        assert_eq!(refused.daily.reset_at_ms, DAY + MS_PER_DAY);
        assert_eq!(
            refused.daily.retry_after_seconds(noon + 2),
            ((MS_PER_DAY / 2 - 2) as u64).div_ceil(1000)
        );
        assert!(
            limiter.check(100, 10, DAY + MS_PER_DAY).allowed(),
            "a new UTC day"
        );
    }
}
