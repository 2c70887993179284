//! `MessagingApi`, the messaging interface: the DLQ of failed workflow runs, URL groups and
//! workflow runs, for the holder of the service token.

use super::{Service, after_cursor, found_or_404, internal, store_failure, write_failure};
use crate::cursor;
use crate::kept_pages::PageKey;
use crate::stats;
use crate::store::{PageQuery, Store, StoreError};
use crate::time::now_ms;
use crate::wire::page_json;
use axum::body::Bytes;
use courier_models::BulkDeleteResult;
use courier_server::runtime::{JsonBody, error_body};
use courier_server::{
    CancelWorkflowRunRequest, CancelWorkflowRunResponse, CancelWorkflowRunsRequest,
    CancelWorkflowRunsResponse, DeleteDlqMessageRequest, DeleteDlqMessageResponse,
    DeleteWorkflowDlqBulkRequest, DeleteWorkflowDlqBulkResponse, GetUrlGroupRequest,
    GetUrlGroupResponse, GetWorkflowDlqRequest, GetWorkflowDlqResponse, ListWorkflowDlqRequest,
    ListWorkflowDlqResponse, MessagingApi, MessagingCredentials, Unauthorized,
};

impl MessagingApi for Service {
    type Principal = ();

    async fn authenticate(&self, credentials: MessagingCredentials) -> Result<(), Unauthorized> {
        self.refresh_account().await;
        let account = self.record();
        credentials.expect_token(&account.account.token, "the service token is not valid")
    }

    async fn list_workflow_dlq(
        &self,
        _: (),
        ListWorkflowDlqRequest {
            filter,
            cursor,
            count,
        }: ListWorkflowDlqRequest,
    ) -> ListWorkflowDlqResponse {
        let after = after_cursor!(ListWorkflowDlqResponse, cursor);
        let floor = self.retention_floor();
        let key = PageKey {
            filter,
            after,
            limit: count as usize,
        };
        let generation = self.store.list_generation();
        if let Some(body) = self.kept_pages.get(&key, generation, floor) {
            return ListWorkflowDlqResponse::Ok(JsonBody::preserialized(body));
        }
        let read = key.clone();
        let page = self.blocking(move |store| {
            store.list_dlq_json(
                PageQuery::first(&read.filter, read.limit)
                    .after(read.after.as_deref())
                    .retained_from(floor),
            )
        });
        match page.await {
            Ok(page) => {
                let body = Bytes::from(page_json(
                    page.next_after.as_deref().map(cursor::encode),
                    &page.messages,
                ));
                if let Some(keep) = page.keep {
                    self.kept_pages.put(key, &body, keep);
                }
                ListWorkflowDlqResponse::Ok(JsonBody::preserialized(body))
            }
            Err(error) => store_failure!(ListWorkflowDlqResponse, "listing the DLQ", error),
        }
    }

    async fn get_workflow_dlq(
        &self,
        _: (),
        GetWorkflowDlqRequest { dlq_id }: GetWorkflowDlqRequest,
    ) -> GetWorkflowDlqResponse {
        let floor = self.retention_floor();
        found_or_404!(
            GetWorkflowDlqResponse,
            // The record as stored at insert: the full shape, as serde writes it.
            {
                let id = dlq_id.clone();
                self.read_now(move |store| store.get_dlq_json(&id, floor))
                    .await
                    .map(|found| found.map(JsonBody::preserialized))
            },
            "reading a DLQ entry",
            format!("no failed run with dlqId `{}` in the DLQ", dlq_id)
        )
    }

    async fn delete_workflow_dlq_bulk(
        &self,
        _: (),
        DeleteWorkflowDlqBulkRequest {
            filter,
            dlq_ids,
            cursor,
            count,
        }: DeleteWorkflowDlqBulkRequest,
    ) -> DeleteWorkflowDlqBulkResponse {
        let limit = count as usize;
        // The cursor is validated even though `docs/decisions.md#d6-bulk-delete-count` ignores it
        // when ids are given.
        let after = after_cursor!(DeleteWorkflowDlqBulkResponse, cursor);
        // The parser guarantees that a `dlqIds` key, however spelled, carries at least one
        // non-empty id (`docs/decisions.md#d12-multi-value-encoding`), so an empty list here means
        // the key was absent.
        let batch = (filter, after, limit);
        let bulk = self.bulk(
            dlq_ids,
            Store::delete_dlq_ids,
            batch,
            Store::delete_dlq_matching,
        );
        match bulk.await {
            Ok((deleted, next_after)) => DeleteWorkflowDlqBulkResponse::Ok(BulkDeleteResult {
                deleted: deleted as i64,
                cursor: next_after.as_deref().map(cursor::encode),
            }),
            Err(error) => {
                write_failure!(DeleteWorkflowDlqBulkResponse, "deleting DLQ entries", error)
            }
        }
    }

    async fn delete_dlq_message(
        &self,
        _: (),
        DeleteDlqMessageRequest { dlq_id }: DeleteDlqMessageRequest,
    ) -> DeleteDlqMessageResponse {
        let deleted = self.change_one(&dlq_id, Store::delete_dlq_one);
        match deleted.await {
            Ok(true) => DeleteDlqMessageResponse::Ok,
            Ok(false) => DeleteDlqMessageResponse::NotFound(error_body(format!(
                "no failed run with dlqId `{}` in the DLQ",
                dlq_id
            ))),
            Err(error) => write_failure!(DeleteDlqMessageResponse, "deleting a DLQ entry", error),
        }
    }

    async fn get_url_group(
        &self,
        _: (),
        GetUrlGroupRequest { url_group_name }: GetUrlGroupRequest,
    ) -> GetUrlGroupResponse {
        found_or_404!(
            GetUrlGroupResponse,
            {
                let name = url_group_name.clone();
                self.read_now(move |store| store.url_group(&name)).await
            },
            "reading a URL group",
            format!("no URL group named `{}`", url_group_name)
        )
    }

    async fn cancel_workflow_run(
        &self,
        _: (),
        CancelWorkflowRunRequest {
            workflow_run_id,
            cancel,
        }: CancelWorkflowRunRequest,
    ) -> CancelWorkflowRunResponse {
        // `cancel=false` is how the official client ends a finished run
        // (`docs/decisions.md#d19-official-client-compatibility`).
        let finished = cancel == Some(false);
        let cancelled = self.change_one(&workflow_run_id, Store::cancel_run);
        match cancelled.await {
            Ok(true) => {
                if finished {
                    self.usage.add(stats::RUN_SUCCEEDED, now_ms(), 1.0);
                } else {
                    self.count_cancelled(1);
                }
                CancelWorkflowRunResponse::Ok
            }
            Ok(false) => CancelWorkflowRunResponse::NotFound(error_body(format!(
                "no workflow run with id `{}`",
                workflow_run_id
            ))),
            Err(error) => write_failure!(CancelWorkflowRunResponse, "cancelling a run", error),
        }
    }

    // `list_dlq_compat` and `delete_workflow_dlq_message`, the official clients' addresses of
    // list and delete one, answer with those operations' code: the trait's default methods.

    async fn cancel_workflow_runs(
        &self,
        _: (),
        CancelWorkflowRunsRequest {
            filter,
            workflow_run_ids,
            cursor,
            count,
            workflow_url_exact_match,
        }: CancelWorkflowRunsRequest,
    ) -> CancelWorkflowRunsResponse {
        let after = after_cursor!(CancelWorkflowRunsResponse, cursor);
        if workflow_run_ids.is_empty() && filter.is_empty() {
            return CancelWorkflowRunsResponse::BadRequest(error_body(
                "give `workflowRunIds` or at least one filter: a bulk cancel never takes every run by default",
            ));
        }
        let limit = count as usize;
        let url_prefix = workflow_url_exact_match != Some(true);
        let batch = (filter, after, limit);
        let ids = workflow_run_ids;
        let bulk = self.bulk(ids, Store::cancel_runs, batch, move |store, query| {
            store.cancel_runs_matching(query, url_prefix)
        });
        let result = bulk.await;
        match result {
            Ok((cancelled, next_after)) => {
                self.count_cancelled(cancelled);
                CancelWorkflowRunsResponse::Ok(courier_models::BulkCancelResult {
                    cancelled: cancelled as i64,
                    cursor: next_after.as_deref().map(cursor::encode),
                })
            }
            Err(error) => write_failure!(CancelWorkflowRunsResponse, "cancelling runs", error),
        }
    }
}
