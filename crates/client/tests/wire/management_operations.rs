//! Management operations, authenticated with Basic credentials.

use super::*;

#[tokio::test]
async fn get_search_index_sends_basic_credentials_and_decodes_the_index() {
    let index = search_index_json();
    let server = RecordingServer::start(vec![Reply::json(200, index.clone())]).await;

    let response = server
        .management()
        .get_search_index()
        .id("idx 1/eu")
        .send()
        .await
        .expect("get index succeeds");

    let request = server.only_request().await;
    assert_eq!(request.method, "GET");
    assert_eq!(request.target, "/v2/search/idx%201%2Feu");
    assert_basic(&request);

    let decoded = response.into_inner();
    assert_eq!(
        decoded.id.to_string(),
        "3f6c1b9e-8a4d-4c2e-9b7a-1d2e3f4a5b6c"
    );
    assert_eq!(decoded.type_, IndexType::Payg);
    assert_eq!(decoded.region, IndexRegion::EuWest1);
    assert_eq!(decoded.max_monthly_reranks, -1);
    assert!(decoded.input_enrichment_enabled);
    assert_round_trip(&decoded, &index);
}

#[tokio::test]
async fn get_search_index_stats_sends_the_period_and_decodes_the_stats() {
    let stats = index_stats_json();
    let server = RecordingServer::start(vec![Reply::json(200, stats.clone())]).await;

    let response = server
        .management()
        .get_search_index_stats()
        .id("idx-1")
        .period(StatsPeriod::ThirtyDays)
        .send()
        .await
        .expect("index stats succeed");

    let request = server.only_request().await;
    assert_eq!(request.method, "GET");
    assert_eq!(request.path(), "/v2/search/idx-1/stats");
    assert_eq!(request.query(), pairs(&[("period", "30d")]));
    assert_basic(&request);

    let decoded = response.into_inner();
    assert_eq!(decoded.current_vector_count, 1500);
    assert_eq!(decoded.monthly_cost, 12.5);
    assert_eq!(decoded.days, ["Mon", "Tue"]);
    assert_eq!(decoded.query_latency_99[0].y, 6.5);
    assert_eq!(decoded.rerank_latency_99[0].y, 15.5);
    assert_round_trip(&decoded, &stats);
}

#[tokio::test]
async fn get_account_stats_sends_the_period_only_when_set_and_decodes_the_stats() {
    let stats = account_stats_json();
    let server = RecordingServer::start(vec![
        Reply::json(200, stats.clone()),
        Reply::json(200, stats.clone()),
    ])
    .await;
    let client = server.management();

    let with_period = client
        .get_account_stats()
        .period(StatsPeriod::OneHour)
        .send()
        .await
        .expect("account stats succeed")
        .into_inner();
    client
        .get_account_stats()
        .send()
        .await
        .expect("account stats without period succeed");

    let requests = server.requests().await;
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].method, "GET");
    assert_eq!(requests[0].target, "/v2/svc/stats?period=1h");
    assert_eq!(requests[1].target, "/v2/svc/stats");
    for request in &requests {
        assert_basic(request);
    }

    assert_eq!(with_period.dlq_message_count, 3);
    assert_eq!(with_period.daily_requests[0].workflow_run, 2.0);
    assert_eq!(with_period.daily_svc_messages[0].id, "delivered");
    assert_eq!(with_period.daily_svc_messages[0].data_points[0].y, 8.0);
    assert_eq!(
        with_period.daily_used[0].x,
        "2025-10-01 11:33:05.585757103 +0000 UTC"
    );
    assert_round_trip(&with_period, &stats);
}

#[tokio::test]
async fn rotate_token_posts_without_body_or_query_and_decodes_the_account() {
    let account = account_json();
    let server = RecordingServer::start(vec![Reply::json(200, account.clone())]).await;

    let response = server
        .management()
        .rotate_token()
        .send()
        .await
        .expect("rotation succeeds");

    let request = server.only_request().await;
    assert_eq!(request.method, "POST");
    assert_eq!(request.target, "/v2/svc/user/rotatetoken");
    assert!(request.body.is_empty());
    assert_basic(&request);

    let decoded = response.into_inner();
    assert_eq!(decoded.token, "new-service-token");
    assert_eq!(decoded.state, AccountState::Active);
    assert_eq!(decoded.type_, PlanType::Paid);
    assert_eq!(decoded.reserved_type, ReservedPlanType::NONE);
    assert_eq!(decoded.max_dlq_retention_time_milis, 604_800_000);
    assert_round_trip(&decoded, &account);
}
