//! The management interface of the fake: statistics of zeros in the documented shape, the
//! indexes the seed stored, and rotation.

use crate::{Defect, Fake, not_found};
use courier_models::{MessagingAccount, StatsPeriod};
use courier_server::runtime::error_body;
use courier_server::{
    GetAccountStatsRequest, GetAccountStatsResponse, GetSearchIndexRequest, GetSearchIndexResponse,
    GetSearchIndexStatsRequest, GetSearchIndexStatsResponse, ManagementApi, ManagementCredentials,
    RotateTokenRequest, RotateTokenResponse, Unauthorized,
};
use serde_json::{Value, json};
use time::OffsetDateTime;

/// `YYYY-MM-DD HH:MM:SS.000 +0000 UTC` of a Unix time in seconds.
fn point_x(seconds: i64) -> String {
    let at = OffsetDateTime::from_unix_timestamp(seconds).unwrap_or(OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.000 +0000 UTC",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    )
}

/// `count` zero points, `interval` seconds apart, starting at `start`.
fn points(start: i64, interval: i64, count: i64) -> Vec<Value> {
    (0..count)
        .map(|i| json!({"x": point_x(start + i * interval), "y": 0}))
        .collect()
}

impl Fake {
    /// The period series of `period` and the daily series of this month.
    fn series(&self, period: StatsPeriod) -> (Vec<Value>, Vec<Value>, i64) {
        let (mut count, interval) = (period.data_points(), period.interval_seconds());
        let now = OffsetDateTime::now_utc();
        let last = now.unix_timestamp() - now.unix_timestamp().rem_euclid(interval);
        let start = last - (count - 1) * interval;
        if self.has(Defect::SeriesOneShort) {
            count -= 1;
        }
        let series = points(start, interval, count);
        let first_day = now
            .replace_day(1)
            .unwrap_or(now)
            .replace_time(time::Time::MIDNIGHT);
        let mut days = i64::from(time::util::days_in_month(now.month(), now.year()));
        if self.has(Defect::MonthOneDayShort) {
            days -= 1;
        }
        (
            series,
            points(first_day.unix_timestamp(), 86_400, days),
            days,
        )
    }
}

impl ManagementApi for Fake {
    type Principal = ();

    async fn authenticate(&self, credentials: ManagementCredentials) -> Result<(), Unauthorized> {
        let right =
            credentials.username == self.customer_id && credentials.password == self.management_key;
        if right || self.has(Defect::AnyManagementCredentials) {
            Ok(())
        } else {
            Err(Unauthorized::basic("unknown management credentials"))
        }
    }

    async fn get_account_stats(
        &self,
        _: (),
        request: GetAccountStatsRequest,
    ) -> GetAccountStatsResponse {
        let (series, daily, days) = self.series(request.period);
        let named = |ids: &[&str]| -> Vec<Value> {
            ids.iter()
                .map(|id| json!({"id": id, "data_points": series}))
                .collect()
        };
        let dlq_count = match self.has(Defect::DlqCountZero) {
            true => 0,
            false => self.state().entries.len(),
        };
        let stats = json!({
            "days": (1..=days).map(|day| format!("day {day}")).collect::<Vec<_>>(),
            "daily_requests": daily.iter().map(|p| json!({"x": p["x"], "y": 0, "workflow_message": 0, "workflow_run": 0})).collect::<Vec<_>>(),
            "daily_billings": daily, "daily_bandwidths": daily,
            "daily_used": series, "daily_used_workflow": series, "daily_bandwidth_used": series,
            "daily_svc_messages": named(&["delivered", "failed", "retried", "canceled"]),
            "daily_workflow_messages": named(&["run_started", "run_succeeded", "run_failed", "run_canceled"]),
            "dlq_message_count": dlq_count,
            "total_monthly_billing": 0
        });
        match serde_json::from_value(stats) {
            Ok(stats) => GetAccountStatsResponse::Ok(stats),
            Err(e) => GetAccountStatsResponse::InternalServerError(error_body(e.to_string())),
        }
    }

    async fn get_search_index(
        &self,
        _: (),
        request: GetSearchIndexRequest,
    ) -> GetSearchIndexResponse {
        if self.partial {
            return GetSearchIndexResponse::NotImplemented(error_body("indexes are not offered"));
        }
        let index = self
            .state()
            .indexes
            .get(&request.id.to_lowercase())
            .cloned();
        match index {
            Some(mut index) => {
                if self.has(Defect::IndexWrongRegion) {
                    index.region = courier_models::IndexRegion::UsCentral1;
                }
                GetSearchIndexResponse::Ok(index)
            }
            None => GetSearchIndexResponse::NotFound(not_found("search index")),
        }
    }

    async fn get_search_index_stats(
        &self,
        _: (),
        request: GetSearchIndexStatsRequest,
    ) -> GetSearchIndexStatsResponse {
        if self.partial {
            return GetSearchIndexStatsResponse::NotImplemented(error_body(
                "indexes are not offered",
            ));
        }
        if !self
            .state()
            .indexes
            .contains_key(&request.id.to_lowercase())
        {
            return GetSearchIndexStatsResponse::NotFound(not_found("search index"));
        }
        let (series, _, _) = self.series(request.period);
        let now = OffsetDateTime::now_utc().unix_timestamp();
        let today = now - now.rem_euclid(86_400);
        let week = points(today - 6 * 86_400, 86_400, 7);
        let mut stats = json!({
            "pending_index_count": 0, "current_vector_count": 0, "daily_query_count": 0,
            "daily_update_count": 0, "monthly_query_count": 0, "monthly_update_count": 0,
            "monthly_bandwidth_usage": 0, "storage_usage": 0, "daily_rerank_count": 0,
            "monthly_rerank_count": 0, "monthly_cost": 0,
            "days": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
        });
        for name in [
            "query_throughput",
            "update_throughput",
            "query_latency_mean",
            "query_latency_99",
            "update_latency_mean",
            "update_latency_99",
            "embeds_latency_mean",
            "embeds_latency_99",
            "vector_count",
            "data_size",
            "rerank_latency_mean",
            "rerank_latency_99",
        ] {
            stats[name] = json!(series);
        }
        for name in [
            "daily_update_requests",
            "daily_query_requests",
            "daily_bandwidths",
            "daily_rerank_requests",
        ] {
            stats[name] = json!(week);
        }
        match serde_json::from_value(stats) {
            Ok(stats) => GetSearchIndexStatsResponse::Ok(stats),
            Err(e) => GetSearchIndexStatsResponse::InternalServerError(error_body(e.to_string())),
        }
    }

    async fn rotate_token(&self, _: (), _: RotateTokenRequest) -> RotateTokenResponse {
        let token = {
            let mut state = self.state();
            state.next += 1;
            let token = format!("fake-token-{}", state.next);
            let old = std::mem::replace(&mut state.service_token, token.clone());
            if self.has(Defect::RotationKeepsOldToken) {
                state.old_tokens.push(old);
            }
            token
        };
        let account = json!({
            "customer_id": self.customer_id, "id": "00000000-0000-4000-8000-00000000fa4e",
            "password": format!("{token}-password"), "token": token, "active": true,
            "state": "active", "last_plan_upgrade_time": 0, "max_message_size": 1_048_576,
            "max_requests_per_day": 1_000_000, "max_requests_per_day_hard": 2_000_000,
            "max_endpoints_per_topic": 100, "max_requests_per_second": 1000,
            "max_dlq_size": 100_000, "max_retries": 5, "max_topics": 100, "max_schedules": 100,
            "max_events_size": 1000, "max_dlq_retention_time_milis": 604_800_000,
            "max_delay": 604_800, "max_parallelism": 10, "max_global_parallelism": 100,
            "max_queues": 10, "prod_pack_enabled": false, "timeout": 15, "type": "paid",
            "reserved_type": "", "reserved_price": 0, "created_by": self.customer_id,
            "creation_time": 1_700_000_000
        });
        match serde_json::from_value::<MessagingAccount>(account) {
            Ok(account) => RotateTokenResponse::Ok(account),
            Err(e) => RotateTokenResponse::InternalServerError(error_body(e.to_string())),
        }
    }
}
