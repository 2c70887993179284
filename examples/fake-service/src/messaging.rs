//! The messaging interface of the fake: the DLQ, runs and URL groups over the fake's state,
//! each defect where an implementer would make it.

use crate::wire::{decode_cursor, encode_cursor};
use crate::{Defect, Fake, bad_cursor, not_found};
use courier_models::UrlGroup;
use courier_server::runtime::{JsonBody, error_body};
use courier_server::{
    CancelWorkflowRunRequest, CancelWorkflowRunResponse, CancelWorkflowRunsRequest,
    CancelWorkflowRunsResponse, DeleteDlqMessageRequest, DeleteDlqMessageResponse,
    DeleteWorkflowDlqBulkRequest, DeleteWorkflowDlqBulkResponse, GetUrlGroupRequest,
    GetUrlGroupResponse, GetWorkflowDlqRequest, GetWorkflowDlqResponse, ListWorkflowDlqRequest,
    ListWorkflowDlqResponse, MessagingApi, MessagingCredentials, Unauthorized,
};
use serde_json::json;
use std::collections::BTreeSet;

impl MessagingApi for Fake {
    type Principal = ();

    async fn authenticate(&self, credentials: MessagingCredentials) -> Result<(), Unauthorized> {
        if self.has(Defect::AnyServiceToken) {
            return Ok(());
        }
        let (token, old) = {
            let state = self.state();
            (state.service_token.clone(), state.old_tokens.clone())
        };
        if old.iter().any(|t| credentials.expect_token(t, "").is_ok()) {
            return Ok(());
        }
        credentials.expect_token(&token, "unknown service token")
    }

    async fn list_workflow_dlq(
        &self,
        _: (),
        request: ListWorkflowDlqRequest,
    ) -> ListWorkflowDlqResponse {
        if request
            .cursor
            .as_deref()
            .is_some_and(|c| decode_cursor(c).is_none())
        {
            return ListWorkflowDlqResponse::BadRequest(bad_cursor());
        }
        let mut filter = request.filter;
        if self.has(Defect::LabelCommaNotSplit) {
            // The parsed values are joined back, as a parser that did not split would see them.
            if filter.label.len() > 1 {
                filter.label = vec![filter.label.join(",")];
            }
        }
        let body = self.list(&filter, request.cursor.as_deref(), request.count);
        ListWorkflowDlqResponse::Ok(JsonBody::preserialized(body.to_string()))
    }

    async fn get_workflow_dlq(
        &self,
        _: (),
        request: GetWorkflowDlqRequest,
    ) -> GetWorkflowDlqResponse {
        match self.state().entries.get(&request.dlq_id) {
            Some(entry) => {
                let mut entry = entry.clone();
                if self.has(Defect::GetChangesWorkflowUrl) {
                    entry["workflowUrl"] = json!("https://elsewhere.example.invalid/");
                }
                GetWorkflowDlqResponse::Ok(JsonBody::preserialized(entry.to_string()))
            }
            None => GetWorkflowDlqResponse::NotFound(not_found("DLQ entry")),
        }
    }

    async fn delete_dlq_message(
        &self,
        _: (),
        request: DeleteDlqMessageRequest,
    ) -> DeleteDlqMessageResponse {
        let mut state = self.state();
        if self.remove(&mut state, &request.dlq_id) || self.has(Defect::DeleteUnknownOk) {
            DeleteDlqMessageResponse::Ok
        } else {
            DeleteDlqMessageResponse::NotFound(not_found("DLQ entry"))
        }
    }

    async fn delete_workflow_dlq_bulk(
        &self,
        _: (),
        request: DeleteWorkflowDlqBulkRequest,
    ) -> DeleteWorkflowDlqBulkResponse {
        if request
            .cursor
            .as_deref()
            .is_some_and(|c| decode_cursor(c).is_none())
        {
            return DeleteWorkflowDlqBulkResponse::BadRequest(bad_cursor());
        }
        let (ids, cursor) = if request.dlq_ids.is_empty() {
            let (ids, more) = self.page(&request.filter, request.cursor.as_deref(), request.count);
            let more = more && !self.has(Defect::BulkDeleteFilterOneBatch);
            let cursor = ids.last().filter(|_| more).map(|last| encode_cursor(last));
            (ids, cursor)
        } else if self.has(Defect::BulkDeleteIdsAppliesFilters) {
            let state = self.state();
            let ids = request
                .dlq_ids
                .iter()
                .filter(|id| {
                    state
                        .entries
                        .get(*id)
                        .is_some_and(|e| self.matches(e, &request.filter))
                })
                .cloned()
                .collect();
            (ids, None)
        } else {
            (request.dlq_ids, None)
        };
        let mut state = self.state();
        let mut deleted = ids.iter().filter(|id| self.remove(&mut state, id)).count();
        if self.has(Defect::BulkDeleteCountsNamed) {
            deleted = ids.len();
        }
        DeleteWorkflowDlqBulkResponse::Ok(courier_models::BulkDeleteResult {
            deleted: deleted as i64,
            cursor,
        })
    }

    async fn cancel_workflow_run(
        &self,
        _: (),
        request: CancelWorkflowRunRequest,
    ) -> CancelWorkflowRunResponse {
        let mut state = self.state();
        if !state.runs.remove(&request.workflow_run_id) && !self.has(Defect::CancelUnknownOk) {
            return CancelWorkflowRunResponse::NotFound(not_found("workflow run"));
        }
        if !self.has(Defect::CancelKeepsEntries) {
            let ids: Vec<String> = state
                .entries
                .iter()
                .filter(|(_, entry)| entry["workflowRunId"] == json!(request.workflow_run_id))
                .map(|(id, _)| id.clone())
                .collect();
            for id in ids {
                self.remove(&mut state, &id);
            }
        }
        CancelWorkflowRunResponse::Ok
    }

    async fn cancel_workflow_runs(
        &self,
        _: (),
        request: CancelWorkflowRunsRequest,
    ) -> CancelWorkflowRunsResponse {
        let mut state = self.state();
        let cancelled = request
            .workflow_run_ids
            .iter()
            .filter(|id| state.runs.remove(*id))
            .count();
        let runs: BTreeSet<&String> = request.workflow_run_ids.iter().collect();
        state
            .entries
            .retain(|_, entry| !runs.iter().any(|run| entry["workflowRunId"] == json!(run)));
        CancelWorkflowRunsResponse::Ok(courier_models::BulkCancelResult {
            cancelled: cancelled as i64,
            cursor: None,
        })
    }

    async fn get_url_group(&self, _: (), request: GetUrlGroupRequest) -> GetUrlGroupResponse {
        if self.partial {
            return GetUrlGroupResponse::NotImplemented(error_body("URL groups are not offered"));
        }
        let group = self.state().groups.get(&request.url_group_name).cloned();
        match group {
            Some(mut group) => {
                if self.has(Defect::UrlGroupWithoutEndpoints) {
                    group.endpoints.clear();
                }
                GetUrlGroupResponse::Ok(group)
            }
            None if self.has(Defect::UnknownUrlGroupOk) => GetUrlGroupResponse::Ok(UrlGroup {
                created_at: 0,
                updated_at: 0,
                name: request.url_group_name,
                endpoints: Vec::new(),
            }),
            None => GetUrlGroupResponse::NotFound(not_found("URL group")),
        }
    }
}
