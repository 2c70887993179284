//! Management operations, authenticated with Basic credentials.

use super::*;

#[tokio::test]
async fn get_search_index_sends_basic_credentials_and_decodes_the_index() {
    let (decoded, request) = round_trip(search_index_json(), BASIC_AUTH, |client| async move {
        client.get_search_index().id("idx 1/eu").send().await
    })
    .await;
    assert_sent(&request, "GET", "/v2/search/idx%201%2Feu");

    assert_eq!(
        decoded.id.to_string(),
        "3f6c1b9e-8a4d-4c2e-9b7a-1d2e3f4a5b6c"
    );
    assert_eq!(
        (decoded.type_, decoded.region, decoded.max_monthly_reranks),
        (IndexType::Payg, IndexRegion::EuWest1, -1)
    );
    assert!(decoded.input_enrichment_enabled);
}

#[tokio::test]
async fn get_search_index_stats_sends_the_period_and_decodes_the_stats() {
    let (decoded, request) = round_trip(index_stats_json(), BASIC_AUTH, |client| async move {
        let call = client.get_search_index_stats().id("idx-1");
        call.period(StatsPeriod::ThirtyDays).send().await
    })
    .await;
    assert_eq!(request.method, "GET");
    assert_eq!(request.path(), "/v2/search/idx-1/stats");
    assert_eq!(request.query(), pairs(&[("period", "30d")]));

    assert_eq!(
        (decoded.current_vector_count, decoded.monthly_cost),
        (1500, 12.5)
    );
    assert_eq!(decoded.days, ["Mon", "Tue"]);
    assert_eq!(
        (
            decoded.query_latency_99[0].y,
            decoded.rerank_latency_99[0].y
        ),
        (6.5, 15.5)
    );
}

#[tokio::test]
async fn get_account_stats_sends_the_period_only_when_set_and_decodes_the_stats() {
    let stats = account_stats_json();
    let (with_period, request) = exchange(
        Reply::json(200, stats.clone()),
        BASIC_AUTH,
        |client| async move {
            let call = client.get_account_stats().period(StatsPeriod::OneHour);
            call.send().await
        },
    )
    .await;
    assert_sent(&request, "GET", "/v2/svc/stats?period=1h");
    let (_, request) = exchange(
        Reply::json(200, stats.clone()),
        BASIC_AUTH,
        |client| async move { client.get_account_stats().send().await },
    )
    .await;
    assert_sent(&request, "GET", "/v2/svc/stats");

    let with_period = with_period.into_inner();
    assert_eq!(with_period.dlq_message_count, 3);
    assert_eq!(with_period.daily_requests[0].workflow_run, 2.0);
    let delivered = &with_period.daily_svc_messages[0];
    assert_eq!(
        (delivered.id.as_str(), delivered.data_points[0].y),
        ("delivered", 8.0)
    );
    assert_eq!(
        with_period.daily_used[0].x,
        "2025-10-01 11:33:05.585757103 +0000 UTC"
    );
    assert_round_trip(&with_period, &stats);
}

#[tokio::test]
async fn rotate_token_posts_without_body_or_query_and_decodes_the_account() {
    let (decoded, request) = round_trip(account_json(), BASIC_AUTH, |client| async move {
        client.rotate_token().send().await
    })
    .await;
    assert_sent(&request, "POST", "/v2/svc/user/rotatetoken");
    assert!(request.body.is_empty());

    assert_eq!(decoded.token, "new-service-token");
    assert_eq!(
        (decoded.state, decoded.type_, decoded.reserved_type),
        (AccountState::Active, PlanType::Paid, ReservedPlanType::NONE)
    );
    assert_eq!(decoded.max_dlq_retention_time_milis, 604_800_000);
}
