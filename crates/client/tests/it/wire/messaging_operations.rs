//! Messaging operations, authenticated with the bearer token (or the query token).

use super::*;

#[tokio::test]
async fn list_workflow_dlq_sends_every_filter_and_decodes_the_page() {
    let page = json!({"cursor": "next/1", "messages": [dlq_message_json()]});
    let server = RecordingServer::start(vec![Reply::json(200, page.clone())]).await;

    let response = server
        .messaging()
        .list_workflow_dlq()
        .caller_ip(vec!["10.0.0.1".to_string(), "10.0.0.2".to_string()])
        .count(25u64)
        .cursor("cur/1 2")
        .failure_function_state(vec![
            FailureFunctionState::CallbackFail,
            FailureFunctionState::CallbackInprogress,
        ])
        .flow_control_key(vec!["fck".to_string()])
        .from_date(1_700_000_000_000_i64)
        .to_date(1_700_000_900_000_i64)
        .label(vec!["billing".to_string(), "eu, west".to_string()])
        .workflow_created_at(1_699_999_999_000_i64)
        .workflow_run_id("wfr_1")
        .workflow_url(vec![
            "https://a.example/wf?x=1".to_string(),
            "https://b.example/wf".to_string(),
        ])
        .send()
        .await
        .expect("list succeeds");

    let request = server.only_request().await;
    assert_eq!(request.method, "GET");
    assert_eq!(request.path(), "/v2/workflows/dlq");
    assert_eq!(
        request.query_by_key(),
        pairs(&[
            ("callerIp", "10.0.0.1"),
            ("callerIp", "10.0.0.2"),
            ("count", "25"),
            ("cursor", "cur/1 2"),
            ("failureFunctionState", "CALLBACK_FAIL"),
            ("failureFunctionState", "CALLBACK_INPROGRESS"),
            ("flowControlKey", "fck"),
            ("fromDate", "1700000000000"),
            ("label", "billing"),
            ("label", "eu, west"),
            ("toDate", "1700000900000"),
            ("workflowCreatedAt", "1699999999000"),
            ("workflowRunId", "wfr_1"),
            ("workflowUrl", "https://a.example/wf?x=1"),
            ("workflowUrl", "https://b.example/wf"),
        ])
    );
    // Repeated keys, never one comma-joined value; a comma inside a value is escaped so the
    // server's split on literal commas (`docs/decisions.md#d12-multi-value-encoding`) keeps it
    // whole.
    assert!(
        request
            .raw_query()
            .contains("label=billing&label=eu%2C+west"),
        "{}",
        request.raw_query()
    );
    assert_eq!(request.header("accept"), Some("application/json"));
    assert_bearer(&request);

    assert_eq!(response.status().as_u16(), 200);
    let page_decoded = response.into_inner();
    assert_eq!(page_decoded.cursor.as_deref(), Some("next/1"));
    assert_eq!(page_decoded.messages.len(), 1);
    let message = &page_decoded.messages[0];
    assert_eq!(message.dlq_id, "dlq-0001");
    assert_eq!(message.labels, ["billing", "eu, west"]);
    assert_eq!(
        message.failure_function_state,
        Some(FailureFunctionState::CallbackFail)
    );
    assert_eq!(message.header["X-Multi"], ["a", "b"]);
    assert_eq!(message.response_status, Some(502));
    assert_round_trip(&page_decoded, &page);
}

#[tokio::test]
async fn list_workflow_dlq_without_parameters_sends_no_query_and_reads_a_last_page() {
    let reply = Reply::json(200, json!({"messages": []}));
    let (response, request) = exchange(reply, BEARER, |client| async move {
        client.list_workflow_dlq().send().await
    })
    .await;
    assert_sent(&request, "GET", "/v2/workflows/dlq");
    let page = response.into_inner();
    assert_eq!(page.cursor, None);
    assert!(page.messages.is_empty());
}

#[tokio::test]
async fn get_workflow_dlq_encodes_the_dlq_id_and_decodes_the_run() {
    let (decoded, request) = round_trip(failed_run_json(), BEARER, |client| async move {
        client.get_workflow_dlq().dlq_id("dlq 1/a").send().await
    })
    .await;
    assert_sent(&request, "GET", "/v2/workflows/dlq/dlq%201%2Fa");

    assert_eq!(
        (decoded.dlq_id.as_str(), decoded.message_id.as_str()),
        ("dlq 1/a", "msg_9")
    );
    assert_eq!(decoded.body_base64.as_deref(), Some("/w=="));
    let info = decoded
        .failure_callback_info
        .as_ref()
        .expect("callback info");
    assert_eq!(info.state, FailureFunctionState::CallbackSuccess);
    assert_eq!(info.response_status, Some(200));
}

#[tokio::test]
async fn delete_workflow_dlq_bulk_sends_ids_or_filters_and_decodes_the_result() {
    let by_ids = json!({"deleted": 2});
    let by_filter = json!({"deleted": 100, "cursor": "batch-2"});
    let server =
        RecordingServer::start(vec![Reply::json(200, by_ids), Reply::json(200, by_filter)]).await;
    let client = server.messaging();

    let first = client
        .delete_workflow_dlq_bulk()
        .dlq_ids(vec!["dlq-a".to_string(), "dlq b".to_string()])
        .count(500u64)
        .send()
        .await
        .expect("delete by ids succeeds")
        .into_inner();
    let second = client
        .delete_workflow_dlq_bulk()
        .label(vec!["a".to_string(), "b".to_string()])
        .failure_function_state(vec![FailureFunctionState::CallbackCanceled])
        .from_date(1_700_000_000_000_i64)
        .cursor("batch-1")
        .send()
        .await
        .expect("delete by filter succeeds")
        .into_inner();

    let requests = server.requests().await;
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.method, "DELETE");
        assert_eq!(request.path(), "/v2/workflows/dlq");
        assert_bearer(request);
    }
    assert_eq!(
        requests[0].query_by_key(),
        pairs(&[("count", "500"), ("dlqIds", "dlq-a"), ("dlqIds", "dlq b")])
    );
    assert_eq!(
        requests[1].query_by_key(),
        pairs(&[
            ("cursor", "batch-1"),
            ("failureFunctionState", "CALLBACK_CANCELED"),
            ("fromDate", "1700000000000"),
            ("label", "a"),
            ("label", "b"),
        ])
    );
    assert!(requests[1].raw_query().contains("label=a&label=b"));

    assert_eq!(first.deleted, 2);
    assert_eq!(first.cursor, None);
    assert_eq!(second.deleted, 100);
    assert_eq!(second.cursor.as_deref(), Some("batch-2"));
}

#[tokio::test]
async fn delete_dlq_message_encodes_the_id_and_accepts_an_empty_200() {
    let (response, request) = exchange(Reply::empty(200), BEARER, |client| async move {
        client.delete_dlq_message().dlq_id("dlq 7/b").send().await
    })
    .await;
    assert_sent(&request, "DELETE", "/v2/dlq/dlq%207%2Fb");
    assert!(request.body.is_empty());
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test]
async fn get_url_group_encodes_the_name_and_decodes_the_group() {
    let (decoded, request) = round_trip(url_group_json(), BEARER, |client| async move {
        client
            .get_url_group()
            .url_group_name("my group/eu")
            .send()
            .await
    })
    .await;
    assert_sent(&request, "GET", "/v2/topics/my%20group%2Feu");

    assert_eq!(
        (decoded.name.as_str(), decoded.endpoints.len()),
        ("my group/eu", 2)
    );
    assert_eq!(decoded.endpoints[1].url, "https://b.example/hook");
}

#[tokio::test]
async fn cancel_workflow_run_sends_cancel_true_and_accepts_an_empty_200() {
    let (response, request) = exchange(Reply::empty(200), BEARER, |client| async move {
        let call = client.cancel_workflow_run().workflow_run_id("wfr 1/x");
        call.cancel(true).send().await
    })
    .await;
    assert_eq!(request.method, "DELETE");
    assert_eq!(request.path(), "/v2/workflows/runs/wfr%201%2Fx");
    assert_eq!(request.query(), pairs(&[("cancel", "true")]));
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test]
async fn query_token_clients_send_service_token_and_no_authorization_on_every_operation() {
    let token = "q tok/1";
    let server = RecordingServer::start(vec![
        Reply::json(200, json!({"messages": []})),
        Reply::json(200, failed_run_json()),
        Reply::json(200, json!({"deleted": 0})),
        Reply::empty(200),
        Reply::json(200, url_group_json()),
        Reply::empty(200),
    ])
    .await;
    let client = messaging::Client::with_query_token(&server.base_url, token);

    // In the order of the canned replies; each call is sent when the loop reaches it.
    let labels = vec!["a".to_string(), "b".to_string()];
    let calls = [
        call(client.list_workflow_dlq().label(labels).send()),
        call(client.get_workflow_dlq().dlq_id("d1").send()),
        call(
            client
                .delete_workflow_dlq_bulk()
                .dlq_ids(vec!["d1".to_string()])
                .send(),
        ),
        call(client.delete_dlq_message().dlq_id("d2").send()),
        call(client.get_url_group().url_group_name("g").send()),
        call(
            client
                .cancel_workflow_run()
                .workflow_run_id("r1")
                .cancel(true)
                .send(),
        ),
    ];
    for (i, call) in calls.into_iter().enumerate() {
        call.await
            .unwrap_or_else(|error| panic!("call {i}: {error}"));
    }

    let requests = server.requests().await;
    let seen: Vec<(&str, &str)> = requests
        .iter()
        .map(|r| (r.method.as_str(), r.path()))
        .collect();
    assert_eq!(
        seen,
        [
            ("GET", "/v2/workflows/dlq"),
            ("GET", "/v2/workflows/dlq/d1"),
            ("DELETE", "/v2/workflows/dlq"),
            ("DELETE", "/v2/dlq/d2"),
            ("GET", "/v2/topics/g"),
            ("DELETE", "/v2/workflows/runs/r1"),
        ]
    );
    for request in &requests {
        assert_eq!(request.header("authorization"), None, "{request:#?}");
        let sent: Vec<String> = request
            .query()
            .into_iter()
            .filter(|(k, _)| k == "service_token")
            .map(|(_, v)| v)
            .collect();
        assert_eq!(sent, [token], "exactly one query token: {request:#?}");
    }
    // The token is form-encoded and added after the operation's own parameters.
    assert_eq!(
        requests[0].raw_query(),
        "label=a&label=b&service_token=q+tok%2F1"
    );
    assert_eq!(
        requests[5].query(),
        pairs(&[("cancel", "true"), ("service_token", token)])
    );
}
