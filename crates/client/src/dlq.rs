//! The DLQ beyond one request: typed filters, a stream over every page, and bulk delete in
//! batches until nothing matches.

use crate::error::CourierError;
use crate::messaging::Client;
use courier_models::{DlqFilter, WorkflowDlqMessage};
use futures::stream::BoxStream;

/// Where a walk over pages starts and how large its pages are: `count` per request (list: 1
/// to 100, default 100; bulk delete: 1 to 1000, default 100; a value outside fails the request
/// with a message giving the range) and a cursor to resume after.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Paging {
    /// Entries per request; the operation's default when `None`.
    pub count: Option<u64>,
    /// Where to resume: the cursor a previous page or batch returned.
    pub cursor: Option<String>,
}

impl Paging {
    /// From the start, with the operation's default page size.
    pub fn new() -> Paging {
        Paging::default()
    }

    /// Entries per request.
    pub fn count(mut self, count: u64) -> Self {
        self.count = Some(count);
        self
    }

    /// Resume after this cursor (from an earlier response) instead of at the beginning.
    pub fn cursor(mut self, cursor: impl Into<String>) -> Self {
        self.cursor = Some(cursor.into());
        self
    }
}

/// A missing and an empty cursor both mean "no more" (`docs/decisions.md#d5-cursor-at-the-end`).
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
        self.dlq_stream_paged(filter, Paging::default())
    }

    /// [`dlq_stream`](Self::dlq_stream) with a page size and a cursor to resume after.
    pub fn dlq_stream_paged(
        &self,
        filter: DlqFilter,
        paging: Paging,
    ) -> BoxStream<'static, Result<WorkflowDlqMessage, CourierError>> {
        let client = self.clone();
        enum State {
            Start(Option<String>),
            Next(String),
            Done,
        }
        let pages =
            futures::stream::try_unfold(State::Start(paging.cursor.clone()), move |state| {
                let filter = filter.clone();
                let count = paging.count;
                let client = client.clone();
                async move {
                    let cursor = match state {
                        State::Done => return Ok(None),
                        State::Start(cursor) => cursor,
                        State::Next(cursor) => Some(cursor),
                    };
                    let mut request = client.list_workflow_dlq().filter(&filter);
                    if let Some(count) = count {
                        request = request.count(count);
                    }
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

    /// Deletes every failed run matching `filter`, batch by batch (100 per request), calling
    /// `progress` with the running total after each batch. Returns how many were deleted. An
    /// empty filter deletes the whole DLQ.
    pub async fn delete_all_matching(
        &self,
        filter: &DlqFilter,
        progress: impl FnMut(u64),
    ) -> Result<u64, CourierError> {
        self.delete_all_matching_paged(filter, &Paging::default(), progress)
            .await
    }

    /// [`delete_all_matching`](Self::delete_all_matching) with a batch size (`paging.count`,
    /// at most 1000) and a cursor to resume after.
    pub async fn delete_all_matching_paged(
        &self,
        filter: &DlqFilter,
        paging: &Paging,
        mut progress: impl FnMut(u64),
    ) -> Result<u64, CourierError> {
        let mut total: u64 = 0;
        let mut cursor = paging.cursor.clone();
        loop {
            let mut request = self.delete_workflow_dlq_bulk().filter(filter);
            if let Some(count) = paging.count {
                request = request.count(count);
            }
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
