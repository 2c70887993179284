//! The account statistics (`AccountStats`), summed from the usage counters per day of the month
//! and per interval of the period asked for.

use super::{
    BANDWIDTH, Buckets, REQUESTS, RUN_STARTED, SVC_MESSAGE_METRICS, WORKFLOW_METRICS,
    WORKFLOW_REQUESTS,
};
use crate::store::{Store, StoreError};
use crate::time::format_x;
use courier_models::{AccountStats, DailyRequestDataPoint, NamedSeries, StatsPeriod};

/// The account statistics (`AccountStats`).
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
