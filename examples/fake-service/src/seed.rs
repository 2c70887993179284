//! The fake's seeding hook: what `courier-verify` stores through it lands in the fake's state,
//! as the admin API of `courier serve` stores it.

use crate::{Defect, Fake};
use courier_models::{FailedWorkflowRun, SearchIndex, UrlGroup};
use courier_verify::{DlqLimits, Seed, SeedFuture};
use serde_json::{Value, json};
use std::sync::Arc;
use time::OffsetDateTime;

/// The seeding hook `courier-verify` calls: it stores what it is given, as the admin API of
/// `courier serve` does.
pub struct FakeSeed(pub Arc<Fake>);

impl Seed for FakeSeed {
    fn insert_dlq(&self, entries: Vec<FailedWorkflowRun>) -> SeedFuture<'_, Vec<String>> {
        let mut state = self.0.state();
        let ids = entries
            .into_iter()
            .map(|entry| {
                state.next += 1;
                let id = match entry.dlq_id.is_empty() {
                    true => format!("{:012}", state.next),
                    false => entry.dlq_id.clone(),
                };
                state.runs.insert(entry.workflow_run_id.clone());
                let mut stored = serde_json::to_value(&entry).unwrap_or(Value::Null);
                stored["dlqId"] = json!(id);
                let full = state.entries.len() as i64 >= state.max_dlq_size;
                if full && !self.0.has(Defect::OldestNotEvicted) {
                    let oldest = state
                        .entries
                        .iter()
                        .min_by_key(|(id, e)| {
                            (e["createdAt"].as_i64().unwrap_or_default(), (*id).clone())
                        })
                        .map(|(id, _)| id.clone());
                    if let Some(oldest) = oldest {
                        state.entries.remove(&oldest);
                    }
                }
                state.entries.insert(id.clone(), stored);
                id
            })
            .collect();
        Box::pin(async move { Ok(ids) })
    }

    fn set_dlq_limits(&self, limits: DlqLimits) -> SeedFuture<'_, Option<DlqLimits>> {
        let mut state = self.0.state();
        let before = DlqLimits {
            max_dlq_size: Some(state.max_dlq_size),
            max_dlq_retention_time_milis: Some(state.retention_ms),
        };
        if let Some(size) = limits.max_dlq_size {
            state.max_dlq_size = size;
        }
        if let Some(retention) = limits.max_dlq_retention_time_milis {
            state.retention_ms = retention;
        }
        Box::pin(async move { Ok(Some(before)) })
    }

    fn insert_search_index(&self, index: SearchIndex) -> SeedFuture<'_, bool> {
        self.0
            .state()
            .indexes
            .insert(index.id.to_string().to_lowercase(), index);
        Box::pin(async { Ok(true) })
    }

    fn insert_url_group(&self, mut group: UrlGroup) -> SeedFuture<'_, bool> {
        let now = OffsetDateTime::now_utc().unix_timestamp() * 1000;
        (group.created_at, group.updated_at) = (now, now);
        self.0.state().groups.insert(group.name.clone(), group);
        Box::pin(async { Ok(true) })
    }
}
