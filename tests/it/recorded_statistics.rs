//! Every statistic comes from something recorded (`docs/decisions.md#d7-metric-identifiers` and
//! `docs/decisions.md#d17-index-statistics`): index statistics from the usage recorded through
//! `POST /admin/v1/search/{id}/usage`, run metrics counted once per run, and the default period's
//! 60 points one minute apart, all over real HTTP.

use crate::common;
use courier_service::time::now_ms;

use courier_service::testing::TestService;
use reqwest::Method;
use serde_json::{Value, json};

const INDEX: &str = "0b6f3e1a-7c2d-4e5f-8a9b-1c2d3e4f5a6b";
const MINUTE_MS: i64 = 60_000;

async fn management(service: &TestService, target: &str) -> (u16, Value) {
    let response = reqwest::Client::new()
        .get(format!("{}{target}", service.base_url()))
        .basic_auth(&service.customer_id, Some(&service.management_key))
        .send()
        .await
        .expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn create_index(service: &TestService) {
    let index = common::search_index_json(&service.customer_id);
    let (status, answer) = service
        .admin_call(Method::PUT, &format!("/search/{INDEX}"), &index)
        .await;
    assert_eq!(status, 200, "{answer}");
}

fn ys(points: &Value) -> Vec<f64> {
    points
        .as_array()
        .expect("data points")
        .iter()
        .map(|p| p["y"].as_f64().expect("y"))
        .collect()
}

fn last(points: &Value) -> f64 {
    *ys(points).last().expect("a point")
}

#[tokio::test]
async fn index_statistics_are_derived_from_recorded_usage() {
    let service = TestService::start().await;
    create_index(&service).await;
    let (status, stats) = management(&service, &format!("/v2/search/{INDEX}/stats")).await;
    assert_eq!(status, 200);
    assert_eq!(stats["daily_query_count"], 0, "nothing recorded, zeros");

    // Every event lands in the current minute, so the 1h period's last point holds it. Latencies
    // of 100 queries: 1..=100 ms, so the mean is 50.5 and the nearest-rank p99 is 99.
    // Too close to the end of a minute, the reads below could fall into the next one.
    if now_ms().rem_euclid(MINUTE_MS) > 45_000 {
        let wait = MINUTE_MS - now_ms().rem_euclid(MINUTE_MS) + 50;
        tokio::time::sleep(std::time::Duration::from_millis(wait as u64)).await;
    }
    let now = now_ms();
    let minute = now - now.rem_euclid(MINUTE_MS);
    let mut events: Vec<Value> = (1..=100)
        .map(|ms| json!({"kind": "query", "at": minute + 1, "latency_ms": ms, "bytes": 10}))
        .collect();
    events.push(json!({"kind": "update", "at": minute + 2, "count": 7, "latency_ms": 4.0}));
    events.push(json!({"kind": "rerank", "at": minute + 3, "count": 3}));
    events.push(json!({"kind": "embed", "latency_ms": 12.5}));
    events.push(json!({"kind": "size", "at": minute - 30 * MINUTE_MS, "vector_count": 10, "data_size": 1000, "pending": 1}));
    events.push(json!({"kind": "size", "at": minute + 4, "vector_count": 50, "data_size": 5000, "pending": 2}));
    let (status, body) = service
        .admin_call(
            Method::POST,
            &format!("/search/{INDEX}/usage"),
            &json!(events),
        )
        .await;
    assert_eq!(
        (status, body["recorded"].as_u64()),
        (201, Some(105)),
        "{body}"
    );

    let (status, stats) =
        management(&service, &format!("/v2/search/{INDEX}/stats?period=1h")).await;
    assert_eq!(status, 200);
    assert_eq!(stats["daily_query_count"], 100);
    assert_eq!(stats["monthly_query_count"], 100);
    assert_eq!(stats["daily_update_count"], 7);
    assert_eq!(stats["daily_rerank_count"], 3);
    assert_eq!(stats["monthly_bandwidth_usage"], 1000);
    assert_eq!(stats["current_vector_count"], 50);
    assert_eq!(stats["storage_usage"], 5000);
    assert_eq!(stats["pending_index_count"], 2);
    assert_eq!(stats["monthly_cost"], 0.0);
    assert_eq!(last(&stats["query_throughput"]), 100.0);
    assert_eq!(last(&stats["update_throughput"]), 7.0);
    assert_eq!(last(&stats["query_latency_mean"]), 50.5);
    assert_eq!(last(&stats["query_latency_99"]), 99.0);
    assert_eq!(last(&stats["update_latency_mean"]), 4.0);
    assert_eq!(last(&stats["update_latency_99"]), 4.0);
    assert_eq!(last(&stats["embeds_latency_mean"]), 12.5);
    assert_eq!(
        last(&stats["daily_query_requests"]),
        100.0,
        "today is the last day"
    );
    assert_eq!(last(&stats["daily_bandwidths"]), 1000.0);
    assert_eq!(last(&stats["daily_rerank_requests"]), 3.0);
    // Sizes carry forward: 0 before the first sample, 10 from its minute, 50 at the end.
    let vectors = ys(&stats["vector_count"]);
    assert_eq!(vectors.len(), 60);
    assert_eq!(vectors[0], 0.0);
    assert_eq!(vectors[59 - 30], 10.0, "{vectors:?}");
    assert_eq!(
        vectors[58], 10.0,
        "carried forward to the minute before the second sample"
    );
    assert_eq!(vectors[59], 50.0);
    assert_eq!(last(&stats["data_size"]), 5000.0);

    let (status, index) = management(&service, &format!("/v2/search/{INDEX}")).await;
    assert_eq!(status, 200);
    assert_eq!(ys(&index["throughput_vector"]).len(), 60);
    assert_eq!(
        last(&index["throughput_vector"]),
        107.0,
        "queries + updates this minute"
    );

    // Durable like every other counter.
    let mut service = service;
    service.restart().await;
    let (_, stats) = management(&service, &format!("/v2/search/{INDEX}/stats")).await;
    assert_eq!(stats["daily_query_count"], 100, "after a restart");
}

#[tokio::test]
async fn bad_usage_events_store_nothing_and_an_unknown_index_is_404() {
    let service = TestService::start().await;
    create_index(&service).await;
    for (events, named) in [
        (json!([{"kind": "query"}, {"kind": "teleport"}]), "event 1"),
        (json!([{"kind": "query", "count": 0}]), "count"),
        (json!([{"kind": "query", "latency_ms": -1}]), "latency_ms"),
        (json!([{"kind": "query", "bytes": -5}]), "event 0"),
        (json!([{"kind": "size", "vector_count": 1}]), "event 0"),
        (json!([{"kind": "query", "colour": "red"}]), "colour"),
        (json!({"kind": "query"}), "body"),
    ] {
        let (status, body) = service
            .admin_call(Method::POST, &format!("/search/{INDEX}/usage"), &events)
            .await;
        let message = body["error"].as_str().unwrap_or_default();
        assert_eq!(status, 400, "{events}: {body}");
        assert!(message.contains(named), "{events}: {message}");
    }
    let (_, stats) = management(&service, &format!("/v2/search/{INDEX}/stats")).await;
    assert_eq!(
        stats["daily_query_count"], 0,
        "nothing of a refused batch was stored"
    );
    let (status, body) = service
        .admin_call(
            Method::POST,
            "/search/00000000-0000-4000-8000-000000000000/usage",
            &json!([{"kind": "query"}]),
        )
        .await;
    assert_eq!(status, 404, "{body}");
}

/// `run_started` counts a run once, when first registered; so `run_failed` never exceeds it for
/// inserted data. Without `period`, the period series have 60 points one minute apart.
#[tokio::test]
async fn each_run_starts_once_and_the_default_period_is_sixty_minutes() {
    let service = TestService::start().await;
    let now = now_ms();
    let failed = |i: i64, run: &str| {
        json!({
            "url": "https://a.example/wf/step", "method": "POST", "maxRetries": 1,
            "createdAt": now + i, "workflowRunId": run, "workflowCreatedAt": now - 1000,
            "workflowUrl": "https://a.example/wf"
        })
    };
    // Three failed entries of two runs, then one of those runs registered again and a new one.
    service
        .insert_dlq(&[failed(0, "wfr-a"), failed(1, "wfr-a"), failed(2, "wfr-b")])
        .await;
    let (status, _) = service.admin_call(
        Method::POST,
        "/runs",
        &json!([
            {"workflowRunId": "wfr-a", "workflowUrl": "https://a.example/wf", "workflowCreatedAt": now},
            {"workflowRunId": "wfr-c", "workflowUrl": "https://a.example/wf", "workflowCreatedAt": now}
        ]),
    )
    .await;
    assert_eq!(status, 201);
    let (status, stats) = management(&service, "/v2/svc/stats").await;
    assert_eq!(status, 200);
    let series = |id: &str| -> f64 {
        let named = stats["daily_workflow_messages"]
            .as_array()
            .expect("named series")
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("no {id} series"));
        ys(&named["data_points"]).iter().sum()
    };
    assert_eq!(
        series("run_started"),
        3.0,
        "wfr-a, wfr-b and wfr-c, once each"
    );
    assert_eq!(series("run_failed"), 3.0);
    let used = stats["daily_used"].as_array().expect("daily_used");
    assert_eq!(used.len(), 60);
    let times: Vec<&str> = used.iter().map(|p| p["x"].as_str().expect("x")).collect();
    // `YYYY-MM-DD HH:MM:SS.mmm +0000 UTC`: consecutive points are one minute apart.
    let minute_of = |x: &str| -> i64 {
        let hours: i64 = x[11..13].parse().expect("hours");
        let minutes: i64 = x[14..16].parse().expect("minutes");
        assert_eq!(&x[16..], ":00.000 +0000 UTC", "{x}");
        hours * 60 + minutes
    };
    for pair in times.windows(2) {
        assert_eq!(
            (minute_of(pair[1]) - minute_of(pair[0])).rem_euclid(24 * 60),
            1,
            "{pair:?}"
        );
    }
}
