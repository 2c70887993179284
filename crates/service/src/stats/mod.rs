//! Statistics from what the service recorded: usage counters per minute, bucketed per period.
//!
//! Every authenticated request adds to `requests` and `bandwidth`; workflow DLQ operations add to
//! `workflow_requests`; DLQ and run changes add to the named series of
//! `docs/decisions.md#d7-metric-identifiers`. Counters are gathered in memory and written to the
//! store in batches (one transaction a second), so recording never puts a write on a request's
//! path. Nothing is invented: an idle service reports zeros.
//!
//! Here are the metrics, their counters and the buckets statistics are summed into; the account
//! statistics are computed in `account`, the index statistics in `index`.

mod account;
mod index;

pub use account::account_stats;
pub use index::{index_stats, index_throughput};

use crate::store::{Store, StoreError};
use crate::time::{
    MS_PER_DAY, date_from_days, days_from_date, days_in_month, format_x, weekday_name,
};
use courier_models::{DataPoint, StatsPeriod};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Mutex;

pub const REQUESTS: &str = "requests";
pub const WORKFLOW_REQUESTS: &str = "workflow_requests";
pub const BANDWIDTH: &str = "bandwidth";
/// Messages delivered, failed into the DLQ, retried and canceled (`daily_svc_messages`).
pub const DELIVERED: &str = "delivered";
pub const FAILED: &str = "failed";
pub const RETRIED: &str = "retried";
pub const CANCELED: &str = "canceled";
/// Workflow runs started, succeeded, failed and canceled (`daily_workflow_messages`).
pub const RUN_STARTED: &str = "run_started";
pub const RUN_SUCCEEDED: &str = "run_succeeded";
pub const RUN_FAILED: &str = "run_failed";
pub const RUN_CANCELED: &str = "run_canceled";
/// Message metrics of `daily_svc_messages` (`docs/decisions.md#d7-metric-identifiers`).
pub const SVC_MESSAGE_METRICS: [&str; 4] = [DELIVERED, FAILED, RETRIED, CANCELED];
/// Run metrics of `daily_workflow_messages` (`docs/decisions.md#d7-metric-identifiers`).
pub const WORKFLOW_METRICS: [&str; 4] = [RUN_STARTED, RUN_SUCCEEDED, RUN_FAILED, RUN_CANCELED];

const MS_PER_MINUTE: i64 = 60_000;

/// Counters not yet written to the store, keyed by (metric, minute).
#[derive(Default)]
pub struct Usage {
    /// The metric names are the constants above, borrowed: counting allocates nothing.
    pending: Mutex<BTreeMap<(Cow<'static, str>, i64), f64>>,
}

impl Usage {
    /// Adds `amount` to `metric` in the minute of `at_ms`.
    pub fn add(&self, metric: impl Into<Cow<'static, str>>, at_ms: i64, amount: f64) {
        let minute = at_ms - at_ms.rem_euclid(MS_PER_MINUTE);
        let mut pending = self
            .pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *pending.entry((metric.into(), minute)).or_insert(0.0) += amount;
    }

    /// Writes the pending counters to the store in one transaction. On failure they are put back,
    /// so a transient store error loses no counts.
    pub fn flush(&self, store: &dyn Store) -> Result<(), StoreError> {
        let batch: Vec<(String, i64, f64)> = {
            let mut pending = self
                .pending
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            std::mem::take(&mut *pending)
                .into_iter()
                .map(|((metric, minute), value)| (metric.into_owned(), minute, value))
                .collect()
        };
        if batch.is_empty() {
            return Ok(());
        }
        let result = store.add_usage_batch(&batch);
        if result.is_err() {
            for (metric, minute, value) in batch {
                self.add(metric, minute, value);
            }
        }
        result
    }
}

/// `count` consecutive buckets of `interval_ms`, the last one holding `now_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buckets {
    pub start_ms: i64,
    pub interval_ms: i64,
    pub count: i64,
}

impl Buckets {
    /// The buckets of a statistics period: 60 at period/60 (240 at 3 h for `30d`), aligned to
    /// interval boundaries and ending with the interval that holds now.
    pub fn for_period(period: StatsPeriod, now_ms: i64) -> Buckets {
        let interval_ms = period.interval_seconds() * 1000;
        let last = now_ms - now_ms.rem_euclid(interval_ms);
        let count = period.data_points();
        Buckets {
            start_ms: last - (count - 1) * interval_ms,
            interval_ms,
            count,
        }
    }

    /// One bucket per day of the month of `now_ms`, future days included.
    pub fn for_month(now_ms: i64) -> Buckets {
        let today = date_from_days(now_ms.div_euclid(MS_PER_DAY));
        let first = days_from_date(today.replace_day(1).expect("every month has a first day"));
        Buckets {
            start_ms: first * MS_PER_DAY,
            interval_ms: MS_PER_DAY,
            count: days_in_month(today).into(),
        }
    }

    /// The last `days` whole days, today included.
    pub fn last_days(now_ms: i64, days: i64) -> Buckets {
        let today = now_ms.div_euclid(MS_PER_DAY);
        Buckets {
            start_ms: (today - days + 1) * MS_PER_DAY,
            interval_ms: MS_PER_DAY,
            count: days,
        }
    }

    fn end_ms(&self) -> i64 {
        self.start_ms + self.interval_ms * self.count
    }

    /// The bucket holding `at_ms`, if any.
    fn index_of(&self, at_ms: i64) -> Option<usize> {
        if at_ms < self.start_ms || at_ms >= self.end_ms() {
            return None;
        }
        usize::try_from((at_ms - self.start_ms).div_euclid(self.interval_ms)).ok()
    }

    /// Weekday names of day buckets.
    pub fn day_names(&self) -> Vec<String> {
        (0..self.count)
            .map(|i| weekday_name((self.start_ms + i * self.interval_ms).div_euclid(MS_PER_DAY)))
            .collect()
    }

    /// Sums of `metric` per bucket.
    pub fn sums(&self, store: &dyn Store, metric: &str) -> Result<Vec<f64>, StoreError> {
        let mut sums = vec![0.0; self.count as usize];
        for (minute, value) in store.usage_between(metric, self.start_ms, self.end_ms() - 1)? {
            let index = (minute - self.start_ms).div_euclid(self.interval_ms);
            if let Some(slot) = usize::try_from(index)
                .ok()
                .and_then(|index| sums.get_mut(index))
            {
                *slot += value;
            }
        }
        Ok(sums)
    }

    /// A data point series of `metric`.
    pub fn series(&self, store: &dyn Store, metric: &str) -> Result<Vec<DataPoint>, StoreError> {
        Ok(self.points(self.sums(store, metric)?))
    }

    /// Data points of given values, one per bucket.
    pub fn points(&self, values: Vec<f64>) -> Vec<DataPoint> {
        values
            .into_iter()
            .enumerate()
            .map(|(i, y)| DataPoint {
                x: format_x(self.start_ms + i as i64 * self.interval_ms),
                y,
            })
            .collect()
    }

    pub fn zeros(&self) -> Vec<DataPoint> {
        self.points(vec![0.0; self.count as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::Buckets;
    use crate::time::{MS_PER_DAY, days_from_date, format_x};
    use courier_models::StatsPeriod;

    #[test]
    fn periods_have_sixty_aligned_points_and_thirty_days_two_hundred_forty() {
        let now = 1_761_240_873_456; // 2025-10-23 17:34:33.456 UTC
        for period in StatsPeriod::ALL {
            let buckets = Buckets::for_period(period, now);
            assert_eq!(
                buckets.count,
                if period == StatsPeriod::ThirtyDays {
                    240
                } else {
                    60
                }
            );
            assert_eq!(buckets.interval_ms, period.interval_seconds() * 1000);
            assert_eq!(
                buckets.start_ms % buckets.interval_ms,
                0,
                "{period}: aligned"
            );
            let last = buckets.start_ms + (buckets.count - 1) * buckets.interval_ms;
            assert!(
                last <= now && now < last + buckets.interval_ms,
                "{period}: the last bucket holds now"
            );
        }
        let hour = Buckets::for_period(StatsPeriod::OneHour, now);
        assert_eq!(format_x(hour.start_ms), "2025-10-23 16:35:00.000 +0000 UTC");
        assert_eq!(
            Buckets::for_period(StatsPeriod::ThirtyDays, now).interval_ms,
            3 * 3_600_000
        );
    }

    #[test]
    fn month_buckets_cover_every_day_of_the_month() {
        let feb_2024 = days_from_date(time::macros::date!(2024 - 02 - 15)) * MS_PER_DAY;
        let month = Buckets::for_month(feb_2024);
        assert_eq!(month.count, 29);
        assert_eq!(
            format_x(month.start_ms),
            "2024-02-01 00:00:00.000 +0000 UTC"
        );
        assert_eq!(month.day_names()[0], "Thursday");
        assert_eq!(month.day_names().len(), 29);
    }
}
