//! Statistics from what the service recorded: usage counters per minute, bucketed per period.
//!
//! Every authenticated request adds to `requests` and `bandwidth`; workflow DLQ operations add to
//! `workflow_requests`; DLQ and run changes add to the named series of
//! `docs/decisions.md#d7-metric-identifiers`. Counters are gathered in memory and written to the
//! store in batches (one transaction a second), so recording never puts a write on a request's
//! path. Nothing is invented: an idle service reports zeros.

use crate::store::{IndexActivity, IndexUsage, Store, StoreError};
use crate::time::{
    MS_PER_DAY, date_from_days, days_from_date, days_in_month, format_x, weekday_name,
};
use courier_models::{
    AccountStats, DailyRequestDataPoint, DataPoint, NamedSeries, SearchIndexStats, StatsPeriod,
};
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
    pending: Mutex<BTreeMap<(String, i64), f64>>,
}

impl Usage {
    /// Adds `amount` to `metric` in the minute of `at_ms`.
    pub fn add(&self, metric: &str, at_ms: i64, amount: f64) {
        let minute = at_ms - at_ms.rem_euclid(MS_PER_MINUTE);
        let mut pending = self
            .pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *pending.entry((metric.to_owned(), minute)).or_insert(0.0) += amount;
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
                .map(|((metric, minute), value)| (metric, minute, value))
                .collect()
        };
        if batch.is_empty() {
            return Ok(());
        }
        let result = store.add_usage_batch(&batch);
        if result.is_err() {
            for (metric, minute, value) in batch {
                self.add(&metric, minute, value);
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

/// The account statistics of section 2.8.
pub fn account_stats(
    store: &dyn Store,
    period: StatsPeriod,
    now_ms: i64,
    dlq_message_count: u64,
) -> Result<AccountStats, StoreError> {
    let month = Buckets::for_month(now_ms);
    let requests = month.sums(store, REQUESTS)?;
    let workflow_messages = month.sums(store, WORKFLOW_REQUESTS)?;
    let workflow_runs = month.sums(store, RUN_STARTED)?;
    let daily_requests = (0..month.count as usize)
        .map(|i| DailyRequestDataPoint {
            x: format_x(month.start_ms + i as i64 * month.interval_ms),
            y: requests[i],
            workflow_message: workflow_messages[i],
            workflow_run: workflow_runs[i],
        })
        .collect();
    let buckets = Buckets::for_period(period, now_ms);
    let named = |metrics: &[&str]| -> Result<Vec<NamedSeries>, StoreError> {
        metrics
            .iter()
            .map(|id| {
                Ok(NamedSeries {
                    id: (*id).to_owned(),
                    data_points: buckets.series(store, id)?,
                })
            })
            .collect()
    };
    Ok(AccountStats {
        days: month.day_names(),
        daily_requests,
        // The reference service bills nothing; the series still aligns with `days`.
        daily_billings: month.zeros(),
        daily_bandwidths: month.series(store, BANDWIDTH)?,
        daily_used: buckets.series(store, REQUESTS)?,
        daily_used_workflow: buckets.series(store, WORKFLOW_REQUESTS)?,
        daily_svc_messages: named(&SVC_MESSAGE_METRICS)?,
        daily_workflow_messages: named(&WORKFLOW_METRICS)?,
        dlq_message_count: i64::try_from(dlq_message_count).unwrap_or(i64::MAX),
        daily_bandwidth_used: buckets.series(store, BANDWIDTH)?,
        total_monthly_billing: 0.0,
    })
}

/// What one interval holds of an index's recorded usage (`docs/decisions.md#d17-index-statistics`).
#[derive(Clone, Debug, Default)]
struct IndexInterval {
    /// Requests per activity kind.
    counts: BTreeMap<IndexActivity, f64>,
    /// Latency samples per activity kind: (latency in ms, how many requests had it).
    latencies: BTreeMap<IndexActivity, Vec<(f64, u64)>>,
    bytes: f64,
}

impl IndexInterval {
    fn count(&self, activity: IndexActivity) -> f64 {
        self.counts.get(&activity).copied().unwrap_or(0.0)
    }

    fn samples(&self, activity: IndexActivity) -> &[(f64, u64)] {
        self.latencies.get(&activity).map_or(&[], Vec::as_slice)
    }
}

/// Mean of weighted latency samples; 0 when there are none.
fn latency_mean(samples: &[(f64, u64)]) -> f64 {
    let n: u64 = samples.iter().map(|(_, count)| count).sum();
    if n == 0 {
        return 0.0;
    }
    samples
        .iter()
        .map(|(ms, count)| ms * *count as f64)
        .sum::<f64>()
        / n as f64
}

/// The 99th percentile by nearest rank: the smallest sample with at least 99% of the samples
/// at or below it (rank ⌈0.99·n⌉); 0 when there are none.
fn latency_p99(samples: &[(f64, u64)]) -> f64 {
    let n: u64 = samples.iter().map(|(_, count)| count).sum();
    if n == 0 {
        return 0.0;
    }
    let rank = (n * 99).div_ceil(100);
    let mut sorted = samples.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut seen = 0;
    for (ms, count) in sorted {
        seen += count;
        if seen >= rank {
            return ms;
        }
    }
    0.0
}

/// An index's usage events bucketed into intervals, with sizes carried forward.
struct IndexSeries {
    buckets: Buckets,
    intervals: Vec<IndexInterval>,
    /// The latest size sample at or before the end of each interval.
    sizes: Vec<Option<(u64, u64, u64)>>,
}

impl IndexSeries {
    fn new(buckets: Buckets, events: &[IndexUsage]) -> IndexSeries {
        let mut intervals = vec![IndexInterval::default(); buckets.count as usize];
        let mut sizes = vec![None; buckets.count as usize];
        let mut latest = None;
        let mut next_size = 0;
        let size_events: Vec<(i64, (u64, u64, u64))> = events
            .iter()
            .filter_map(|event| match event {
                IndexUsage::Size {
                    at,
                    vector_count,
                    data_size,
                    pending,
                } => Some((*at, (*vector_count, *data_size, *pending))),
                IndexUsage::Activity { .. } => None,
            })
            .collect();
        for (i, size) in sizes.iter_mut().enumerate() {
            let end = buckets.start_ms + (i as i64 + 1) * buckets.interval_ms;
            while next_size < size_events.len() && size_events[next_size].0 < end {
                latest = Some(size_events[next_size].1);
                next_size += 1;
            }
            *size = latest;
        }
        for event in events {
            let IndexUsage::Activity {
                activity,
                at,
                count,
                latency_ms,
                bytes,
            } = event
            else {
                continue;
            };
            let Some(interval) = buckets.index_of(*at).and_then(|i| intervals.get_mut(i)) else {
                continue;
            };
            *interval.counts.entry(*activity).or_insert(0.0) += *count as f64;
            interval.bytes += *bytes as f64;
            if let Some(ms) = latency_ms {
                interval
                    .latencies
                    .entry(*activity)
                    .or_default()
                    .push((*ms, *count));
            }
        }
        IndexSeries {
            buckets,
            intervals,
            sizes,
        }
    }

    fn points(&self, value: impl Fn(&IndexInterval) -> f64) -> Vec<DataPoint> {
        self.buckets
            .points(self.intervals.iter().map(value).collect())
    }

    fn total(&self, value: impl Fn(&IndexInterval) -> f64) -> i64 {
        self.intervals.iter().map(value).sum::<f64>() as i64
    }

    fn latency_mean(&self, activity: IndexActivity) -> Vec<DataPoint> {
        self.points(|interval| latency_mean(interval.samples(activity)))
    }

    fn latency_p99(&self, activity: IndexActivity) -> Vec<DataPoint> {
        self.points(|interval| latency_p99(interval.samples(activity)))
    }

    fn size_points(&self, pick: impl Fn((u64, u64, u64)) -> u64) -> Vec<DataPoint> {
        self.buckets.points(
            self.sizes
                .iter()
                .map(|size| size.map_or(0.0, |size| pick(size) as f64))
                .collect(),
        )
    }
}

/// An index's events covering every bucket set given, read once.
fn index_events(
    store: &dyn Store,
    index_id: &str,
    buckets: &[Buckets],
) -> Result<Vec<IndexUsage>, StoreError> {
    let from = buckets.iter().map(|b| b.start_ms).min().unwrap_or(0);
    let to = buckets.iter().map(|b| b.end_ms() - 1).max().unwrap_or(0);
    store.index_usage_between(index_id, from, to)
}

/// `throughput_vector` of an index (2.5): queries plus updates per minute over the last hour.
pub fn index_throughput(
    store: &dyn Store,
    index_id: &str,
    now_ms: i64,
) -> Result<Vec<DataPoint>, StoreError> {
    let hour = Buckets::for_period(StatsPeriod::OneHour, now_ms);
    let events = index_events(store, index_id, &[hour])?;
    Ok(IndexSeries::new(hour, &events).points(|interval| {
        interval.count(IndexActivity::Query) + interval.count(IndexActivity::Update)
    }))
}

/// The index statistics of section 2.7, every figure derived from the usage recorded through
/// the admin API (`docs/decisions.md#d17-index-statistics`): counts per UTC day and month,
/// throughput per interval, latency mean and nearest-rank 99th percentile per interval, sizes
/// carried forward from the latest size sample. Billing stays 0: the reference service bills
/// nothing.
pub fn index_stats(
    store: &dyn Store,
    index_id: &str,
    period: StatsPeriod,
    now_ms: i64,
) -> Result<SearchIndexStats, StoreError> {
    use IndexActivity::{Embed, Query, Rerank, Update};
    let today = Buckets::last_days(now_ms, 1);
    let week = Buckets::last_days(now_ms, 7);
    let month = Buckets::for_month(now_ms);
    let buckets = Buckets::for_period(period, now_ms);
    let events = index_events(store, index_id, &[today, week, month, buckets])?;
    let days = week.day_names();
    let today = IndexSeries::new(today, &events);
    let week = IndexSeries::new(week, &events);
    let month = IndexSeries::new(month, &events);
    let period = IndexSeries::new(buckets, &events);
    // The latest size sample at or before now: the period's last interval holds now.
    let (vectors, data_size, pending) = period.sizes.last().copied().flatten().unwrap_or_default();
    let as_i64 = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
    Ok(SearchIndexStats {
        pending_index_count: as_i64(pending),
        current_vector_count: as_i64(vectors),
        daily_query_count: today.total(|i| i.count(Query)),
        daily_update_count: today.total(|i| i.count(Update)),
        monthly_query_count: month.total(|i| i.count(Query)),
        monthly_update_count: month.total(|i| i.count(Update)),
        monthly_bandwidth_usage: month.total(|i| i.bytes),
        storage_usage: as_i64(data_size),
        daily_rerank_count: today.total(|i| i.count(Rerank)),
        monthly_rerank_count: month.total(|i| i.count(Rerank)),
        monthly_cost: 0.0,
        days,
        daily_update_requests: week.points(|i| i.count(Update)),
        daily_query_requests: week.points(|i| i.count(Query)),
        daily_bandwidths: week.points(|i| i.bytes),
        query_throughput: period.points(|i| i.count(Query)),
        update_throughput: period.points(|i| i.count(Update)),
        query_latency_mean: period.latency_mean(Query),
        query_latency_99: period.latency_p99(Query),
        update_latency_mean: period.latency_mean(Update),
        update_latency_99: period.latency_p99(Update),
        embeds_latency_mean: period.latency_mean(Embed),
        embeds_latency_99: period.latency_p99(Embed),
        vector_count: period.size_points(|(vectors, _, _)| vectors),
        data_size: period.size_points(|(_, data_size, _)| data_size),
        daily_rerank_requests: week.points(|i| i.count(Rerank)),
        rerank_latency_mean: period.latency_mean(Rerank),
        rerank_latency_99: period.latency_p99(Rerank),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
