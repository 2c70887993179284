//! The statistics of a search index (`SearchIndexStats`) and the index's `throughput_vector`, derived
//! from the usage events recorded through the admin API (`docs/decisions.md#d17-index-statistics`).

use super::Buckets;
use crate::store::{IndexActivity, IndexUsage, Store, StoreError};
use courier_models::{DataPoint, SearchIndexStats, StatsPeriod};
use std::collections::BTreeMap;

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

/// The index statistics (`SearchIndexStats`), every figure derived from the usage recorded through
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
