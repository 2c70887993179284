//! The fake's seeding hook: what `courier-verify` stores through it lands in the fake's state,
//! as the admin API of `courier serve` stores it.

use crate::Fake;
use courier_models::{FailedWorkflowRun, SearchIndex, UrlGroup};
use courier_verify::{Seed, SeedFuture};
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
                state.entries.insert(id.clone(), stored);
                id
            })
            .collect();
        Box::pin(async move { Ok(ids) })
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
