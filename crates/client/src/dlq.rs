//! The DLQ beyond one request: typed filters, a stream over every page, and bulk delete in
//! batches until nothing matches.

use crate::error::CourierError;
use crate::messaging::{Client, builder};
use courier_models::{FailureFunctionState, WorkflowDlqMessage};
use futures::stream::BoxStream;

/// The list filters of operation 4.1 (shared by list, stream and bulk delete), plus the page
/// size and a starting cursor. OR within one filter's values, AND across filters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DlqFilter {
    pub from_date: Option<i64>,
    pub to_date: Option<i64>,
    pub workflow_url: Vec<String>,
    pub workflow_run_id: Option<String>,
    pub workflow_created_at: Option<i64>,
    pub label: Vec<String>,
    pub failure_function_state: Vec<FailureFunctionState>,
    pub caller_ip: Vec<String>,
    pub flow_control_key: Vec<String>,
    /// Page size (list: 1 to 100) or batch size (bulk delete: 1 to 1000); a value outside
    /// fails the request with a message saying so, before or at the service.
    pub count: Option<u64>,
    /// Start after this cursor instead of at the beginning.
    pub cursor: Option<String>,
}

macro_rules! apply_filter {
    ($filter:expr, $request:expr) => {{
        let filter = $filter;
        let mut request = $request;
        if let Some(v) = filter.from_date {
            request = request.from_date(v);
        }
        if let Some(v) = filter.to_date {
            request = request.to_date(v);
        }
        if !filter.workflow_url.is_empty() {
            request = request.workflow_url(filter.workflow_url.clone());
        }
        if let Some(v) = &filter.workflow_run_id {
            request = request.workflow_run_id(v.clone());
        }
        if let Some(v) = filter.workflow_created_at {
            request = request.workflow_created_at(v);
        }
        if !filter.label.is_empty() {
            request = request.label(filter.label.clone());
        }
        if !filter.failure_function_state.is_empty() {
            request = request.failure_function_state(filter.failure_function_state.clone());
        }
        if !filter.caller_ip.is_empty() {
            request = request.caller_ip(filter.caller_ip.clone());
        }
        if !filter.flow_control_key.is_empty() {
            request = request.flow_control_key(filter.flow_control_key.clone());
        }
        if let Some(v) = filter.count {
            request = request.count(v);
        }
        request
    }};
}

impl DlqFilter {
    pub fn new() -> DlqFilter {
        DlqFilter::default()
    }

    /// Created at or after `ms` (Unix milliseconds, inclusive).
    pub fn from_date(mut self, ms: i64) -> Self {
        self.from_date = Some(ms);
        self
    }

    /// Created at or before `ms` (Unix milliseconds, inclusive).
    pub fn to_date(mut self, ms: i64) -> Self {
        self.to_date = Some(ms);
        self
    }

    /// Adds one workflow URL (OR with the others); see [`workflow_urls`](Self::workflow_urls).
    pub fn workflow_url(mut self, url: impl Into<String>) -> Self {
        self.workflow_url.push(url.into());
        self
    }

    /// Adds every workflow URL of `urls` (any iterator of strings).
    pub fn workflow_urls<S: Into<String>>(mut self, urls: impl IntoIterator<Item = S>) -> Self {
        self.workflow_url.extend(urls.into_iter().map(Into::into));
        self
    }

    pub fn workflow_run_id(mut self, id: impl Into<String>) -> Self {
        self.workflow_run_id = Some(id.into());
        self
    }

    pub fn workflow_created_at(mut self, ms: i64) -> Self {
        self.workflow_created_at = Some(ms);
        self
    }

    /// Adds one label (OR with the others); see [`labels`](Self::labels).
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label.push(label.into());
        self
    }

    /// Adds every label of `labels` (any iterator of strings).
    pub fn labels<S: Into<String>>(mut self, labels: impl IntoIterator<Item = S>) -> Self {
        self.label.extend(labels.into_iter().map(Into::into));
        self
    }

    /// Adds one failure function state; see [`failure_function_states`](Self::failure_function_states).
    pub fn failure_function_state(mut self, state: FailureFunctionState) -> Self {
        self.failure_function_state.push(state);
        self
    }

    /// Adds every state of `states`.
    pub fn failure_function_states(
        mut self,
        states: impl IntoIterator<Item = FailureFunctionState>,
    ) -> Self {
        self.failure_function_state.extend(states);
        self
    }

    /// Adds one caller IP; see [`caller_ips`](Self::caller_ips).
    pub fn caller_ip(mut self, ip: impl Into<String>) -> Self {
        self.caller_ip.push(ip.into());
        self
    }

    /// Adds every caller IP of `ips`.
    pub fn caller_ips<S: Into<String>>(mut self, ips: impl IntoIterator<Item = S>) -> Self {
        self.caller_ip.extend(ips.into_iter().map(Into::into));
        self
    }

    /// Adds one flow-control key; see [`flow_control_keys`](Self::flow_control_keys).
    pub fn flow_control_key(mut self, key: impl Into<String>) -> Self {
        self.flow_control_key.push(key.into());
        self
    }

    /// Adds every flow-control key of `keys`.
    pub fn flow_control_keys<S: Into<String>>(mut self, keys: impl IntoIterator<Item = S>) -> Self {
        self.flow_control_key
            .extend(keys.into_iter().map(Into::into));
        self
    }

    /// Page size (list: 1 to 100, default 100) or batch size (bulk delete: 1 to 1000). 0 or
    /// too large a value fails the request with a message that gives the allowed range.
    pub fn count(mut self, count: u64) -> Self {
        self.count = Some(count);
        self
    }

    pub fn cursor(mut self, cursor: impl Into<String>) -> Self {
        self.cursor = Some(cursor.into());
        self
    }

    /// Applies the filters to a list request (not the cursor: pagination sets it).
    pub fn apply_to_list<'a>(
        &self,
        request: builder::ListWorkflowDlq<'a>,
    ) -> builder::ListWorkflowDlq<'a> {
        apply_filter!(self, request)
    }

    /// Applies the filters to a bulk delete request (not the cursor).
    pub fn apply_to_delete<'a>(
        &self,
        request: builder::DeleteWorkflowDlqBulk<'a>,
    ) -> builder::DeleteWorkflowDlqBulk<'a> {
        apply_filter!(self, request)
    }
}

impl<'a> builder::ListWorkflowDlq<'a> {
    /// Sets every filter of `filter` (not its cursor: set that with `.cursor(..)`), so one
    /// [`DlqFilter`] serves listing, [`Client::dlq_stream`] and
    /// [`Client::delete_all_matching`].
    pub fn filter(self, filter: &DlqFilter) -> Self {
        filter.apply_to_list(self)
    }
}

impl<'a> builder::DeleteWorkflowDlqBulk<'a> {
    /// Sets every filter of `filter` (not its cursor).
    pub fn filter(self, filter: &DlqFilter) -> Self {
        filter.apply_to_delete(self)
    }
}

/// A missing and an empty cursor both mean "no more" (decision 5).
fn next_cursor(cursor: Option<String>) -> Option<String> {
    cursor.filter(|c| !c.is_empty())
}

impl Client {
    /// Every failed run matching `filter`, following the cursor across pages. The stream owns
    /// a clone of the client (cheap: the connection pool is shared) and is already pinned, so
    /// it can be returned, stored or polled with `next()` / `try_next()` directly.
    pub fn dlq_stream(
        &self,
        filter: DlqFilter,
    ) -> BoxStream<'static, Result<WorkflowDlqMessage, CourierError>> {
        let client = self.clone();
        enum State {
            Start(Option<String>),
            Next(String),
            Done,
        }
        let pages =
            futures::stream::try_unfold(State::Start(filter.cursor.clone()), move |state| {
                let filter = filter.clone();
                let client = client.clone();
                async move {
                    let cursor = match state {
                        State::Done => return Ok(None),
                        State::Start(cursor) => cursor,
                        State::Next(cursor) => Some(cursor),
                    };
                    let mut request = client.list_workflow_dlq().filter(&filter);
                    if let Some(cursor) = cursor {
                        request = request.cursor(cursor);
                    }
                    let page = request.send().await?.into_inner();
                    let next = match next_cursor(page.cursor) {
                        Some(cursor) => State::Next(cursor),
                        None => State::Done,
                    };
                    Ok::<_, CourierError>(Some((
                        futures::stream::iter(page.messages.into_iter().map(Ok)),
                        next,
                    )))
                }
            });
        Box::pin(futures::TryStreamExt::try_flatten(pages))
    }

    /// Deletes every failed run matching `filter`, batch by batch (`filter.count` per request,
    /// default 100, at most 1000), calling `progress` with the running total after each batch.
    /// Returns how many were deleted. An empty filter deletes the whole DLQ.
    pub async fn delete_all_matching(
        &self,
        filter: &DlqFilter,
        mut progress: impl FnMut(u64),
    ) -> Result<u64, CourierError> {
        let mut total: u64 = 0;
        let mut cursor = filter.cursor.clone();
        loop {
            let mut request = self.delete_workflow_dlq_bulk().filter(filter);
            if let Some(cursor) = cursor.take() {
                request = request.cursor(cursor);
            }
            let batch = request.send().await?.into_inner();
            total += u64::try_from(batch.deleted).unwrap_or(0);
            progress(total);
            match next_cursor(batch.cursor) {
                Some(next) => cursor = Some(next),
                None => return Ok(total),
            }
        }
    }
}
