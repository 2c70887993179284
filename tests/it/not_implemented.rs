//! A partial implementation of the traits (a fake that provides only what a test needs) answers
//! the documented 501 for the rest, and the client reports it at once, without retrying.

use courier_client::messaging;
use courier_models::{UrlGroup, UrlGroupEndpoint};
use courier_server::runtime::{Unauthorized, error_body};
use courier_server::{
    CancelWorkflowRunRequest, CancelWorkflowRunResponse, CancelWorkflowRunsRequest,
    CancelWorkflowRunsResponse, DeleteDlqMessageRequest, DeleteDlqMessageResponse,
    DeleteWorkflowDlqBulkRequest, DeleteWorkflowDlqBulkResponse, GetUrlGroupRequest,
    GetUrlGroupResponse, GetWorkflowDlqRequest, GetWorkflowDlqResponse, ListWorkflowDlqRequest,
    ListWorkflowDlqResponse, MessagingApi, MessagingCredentials,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Provides URL groups only; counts the calls of everything else.
#[derive(Default)]
struct TopicsOnly {
    unprovided_calls: AtomicUsize,
}

impl TopicsOnly {
    fn unprovided(&self, operation: &str) -> courier_models::ErrorBody {
        self.unprovided_calls.fetch_add(1, Ordering::SeqCst);
        error_body(format!("this fake does not provide {operation}"))
    }
}

impl MessagingApi for TopicsOnly {
    type Principal = ();

    async fn authenticate(&self, _: MessagingCredentials) -> Result<(), Unauthorized> {
        Ok(())
    }

    async fn get_url_group(&self, _: (), request: GetUrlGroupRequest) -> GetUrlGroupResponse {
        GetUrlGroupResponse::Ok(UrlGroup {
            name: request.url_group_name,
            created_at: 1,
            updated_at: 2,
            endpoints: vec![UrlGroupEndpoint {
                name: "a".into(),
                url: "https://a.example".into(),
            }],
        })
    }

    async fn list_workflow_dlq(&self, _: (), _: ListWorkflowDlqRequest) -> ListWorkflowDlqResponse {
        ListWorkflowDlqResponse::NotImplemented(self.unprovided("listWorkflowDlq"))
    }

    async fn get_workflow_dlq(&self, _: (), _: GetWorkflowDlqRequest) -> GetWorkflowDlqResponse {
        GetWorkflowDlqResponse::NotImplemented(self.unprovided("getWorkflowDlq"))
    }

    async fn delete_workflow_dlq_bulk(
        &self,
        _: (),
        _: DeleteWorkflowDlqBulkRequest,
    ) -> DeleteWorkflowDlqBulkResponse {
        DeleteWorkflowDlqBulkResponse::NotImplemented(self.unprovided("deleteWorkflowDlqBulk"))
    }

    async fn delete_dlq_message(
        &self,
        _: (),
        _: DeleteDlqMessageRequest,
    ) -> DeleteDlqMessageResponse {
        DeleteDlqMessageResponse::NotImplemented(self.unprovided("deleteDlqMessage"))
    }

    async fn cancel_workflow_run(
        &self,
        _: (),
        _: CancelWorkflowRunRequest,
    ) -> CancelWorkflowRunResponse {
        CancelWorkflowRunResponse::NotImplemented(self.unprovided("cancelWorkflowRun"))
    }

    async fn cancel_workflow_runs(
        &self,
        _: (),
        _: CancelWorkflowRunsRequest,
    ) -> CancelWorkflowRunsResponse {
        CancelWorkflowRunsResponse::NotImplemented(self.unprovided("cancelWorkflowRuns"))
    }
}

#[tokio::test]
async fn an_operation_the_fake_does_not_provide_is_501_and_is_not_retried() {
    let fake = Arc::new(TopicsOnly::default());
    let router = courier_server::finish(courier_server::messaging_router(fake.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    tokio::spawn(async move { axum::serve(listener, router).await });
    let client = messaging::Client::with_token(&base, "any-token");

    let group = client
        .get_url_group()
        .url_group_name("orders")
        .send()
        .await
        .expect("the provided operation works")
        .into_inner();
    assert_eq!(group.name, "orders");

    // The default retry policy retries 5xx three times; 501 is not among them.
    let error = client
        .list_workflow_dlq()
        .send()
        .await
        .expect_err("not provided");
    assert!(error.is_not_implemented(), "{error}");
    assert!(!error.retryable, "{error}");
    assert_eq!(
        error.to_string(),
        "501 Not Implemented: this fake does not provide listWorkflowDlq"
    );
    assert_eq!(fake.unprovided_calls.load(Ordering::SeqCst), 1, "sent once");

    // Over plain HTTP: the status and the error body the spec documents.
    let response = reqwest::Client::new()
        .delete(format!("{base}/v2/dlq/some-id"))
        .bearer_auth("any-token")
        .send()
        .await
        .expect("request");
    assert_eq!(response.status().as_u16(), 501);
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(
        body,
        serde_json::json!({"error": "this fake does not provide deleteDlqMessage"})
    );
}
