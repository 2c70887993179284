//! Errors and retries: documented and undocumented statuses, what is resent and what never is.

use super::*;

#[tokio::test]
async fn a_documented_404_is_an_error_response_with_status_and_message() {
    let body = json!({"error": "no such dlqId"});
    let server =
        RecordingServer::start(vec![Reply::json(404, body.clone()), Reply::json(404, body)]).await;
    let client = server.messaging();

    // `send_raw()` keeps progenitor's error type for callers who want the raw response.
    let raw = client.get_workflow_dlq().dlq_id("missing").send_raw();
    match raw.await.expect_err("404 is an error") {
        Error::ErrorResponse(response) => {
            assert_eq!(response.status().as_u16(), 404);
            assert_eq!(response.into_inner().error, "no such dlqId");
        }
        other => panic!("expected ErrorResponse, got {other:?}"),
    }

    let sent = client.delete_dlq_message().dlq_id("missing").send();
    // `send()` yields the one error type directly (annoyance 2: no conversion needed).
    let courier: CourierError = sent.await.expect_err("404 is an error");
    assert_eq!(courier.to_string(), "404 Not Found: no such dlqId");
    assert_eq!(courier.status, Some(404));
    assert_eq!(courier.message, "no such dlqId");
    assert!(!courier.retryable);

    // Not retried: exactly one request per call.
    assert_eq!(server.requests().await.len(), 2);
}

#[tokio::test]
async fn an_undocumented_status_is_a_readable_error_carrying_the_status() {
    let server =
        RecordingServer::start(vec![Reply::json(418, json!({"error": "short and stout"}))]).await;

    let error = server
        .messaging()
        .get_url_group()
        .url_group_name("teapot")
        .send_raw()
        .await
        .expect_err("418 is an error");

    assert_eq!(error.status().map(|s| s.as_u16()), Some(418));
    assert!(
        matches!(error, Error::UnexpectedResponse(_)),
        "expected UnexpectedResponse, got {error:?}"
    );
    assert!(error.to_string().contains("418"), "{error}");
    let courier = CourierError::from(error);
    assert_eq!(courier.status, Some(418));
    assert!(!courier.retryable);
    let text = courier.to_string();
    assert!(
        text.contains("418") && text.contains("/v2/topics/teapot"),
        "{text}"
    );
    assert_eq!(server.requests().await.len(), 1);
}

/// A management client with fast retries: two attempts, millisecond backoff.
fn fast_retrying_management(server: &RecordingServer) -> management::Client {
    management::Client::builder()
        .base_url(&server.base_url)
        .credentials(CUSTOMER_ID, MANAGEMENT_KEY)
        .retry(RetryPolicy {
            max_attempts: 2,
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(5),
            ..RetryPolicy::default()
        })
        .build()
        .expect("client builds")
}

/// A server that answers 503 once, then `body`: what a retry would get.
async fn busy_once(body: Value) -> RecordingServer {
    RecordingServer::start(vec![
        Reply::json(503, json!({"error": "busy"})),
        Reply::json(200, body),
    ])
    .await
}

#[tokio::test]
async fn an_idempotent_request_is_resent_identically_after_a_503() {
    let server = busy_once(search_index_json()).await;

    let index = fast_retrying_management(&server)
        .get_search_index()
        .id("idx-1")
        .send()
        .await
        .expect("the retry succeeds")
        .into_inner();

    assert_eq!(index.name, "products");
    let requests = server.requests().await;
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.method, "GET");
        assert_eq!(request.target, "/v2/search/idx-1");
        assert_basic(request);
    }
}

#[tokio::test]
async fn rotation_is_never_retried() {
    let server = busy_once(account_json()).await;

    let error = fast_retrying_management(&server)
        .rotate_token()
        .send()
        .await
        .expect_err("the 503 is returned, not retried");

    assert_eq!(error.status, Some(503));
    assert_eq!(server.requests().await.len(), 1, "rotation was sent twice");
}
