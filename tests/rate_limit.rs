//! The account's `max_requests_per_second`: 429 with `RateLimit-*` and `Retry-After` headers, and
//! a client whose retries honour them.

use courier_client::{RetryPolicy, messaging};
use courier_service::testing::TestService;
use serde_json::json;

async fn limit_to(service: &TestService, per_second: u64) {
    let response = service
        .admin(reqwest::Method::PATCH, "/account")
        .json(&json!({"max_requests_per_second": per_second}))
        .send()
        .await
        .expect("patch");
    assert_eq!(response.status(), 200);
}

fn header(response: &reqwest::Response, name: &str) -> Option<u64> {
    response.headers().get(name)?.to_str().ok()?.parse().ok()
}

#[tokio::test]
async fn requests_over_the_limit_get_429_with_rate_limit_headers() {
    let service = TestService::start().await;
    limit_to(&service, 3).await;
    let http = reqwest::Client::new();
    let url = format!("{}/v2/workflows/dlq", service.base_url());
    let mut statuses = Vec::new();
    for _ in 0..10 {
        let response = http
            .get(&url)
            .bearer_auth(&service.service_token)
            .send()
            .await
            .expect("request");
        assert_eq!(header(&response, "ratelimit-limit"), Some(3));
        let status = response.status().as_u16();
        if status == 429 {
            assert_eq!(header(&response, "ratelimit-remaining"), Some(0));
            let retry_after = header(&response, "retry-after").expect("Retry-After on a 429");
            assert!((1..=1).contains(&retry_after), "{retry_after}");
            assert_eq!(header(&response, "ratelimit-reset"), Some(retry_after));
            let body: serde_json::Value = response.json().await.expect("json");
            assert!(
                body["error"]
                    .as_str()
                    .expect("error")
                    .contains("max_requests_per_second")
            );
        } else {
            assert!(header(&response, "ratelimit-remaining").expect("remaining") < 3);
        }
        statuses.push(status);
    }
    // Ten requests in well under a few seconds: at most 3 a second get through.
    let admitted = statuses.iter().filter(|s| **s == 200).count();
    assert!(statuses.contains(&429), "{statuses:?}");
    assert!((3..=9).contains(&admitted), "{statuses:?}");
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 429),
        "{statuses:?}"
    );

    // The limit changes at once through the admin API.
    limit_to(&service, 1000).await;
    let response = http
        .get(&url)
        .bearer_auth(&service.service_token)
        .send()
        .await
        .expect("request");
    assert_eq!(
        (
            response.status().as_u16(),
            header(&response, "ratelimit-limit")
        ),
        (200, Some(1000))
    );
}

#[tokio::test]
async fn the_client_retries_after_429_and_reports_it_when_retries_are_off() {
    let service = TestService::start().await;
    limit_to(&service, 2).await;
    let patient = messaging::Client::builder()
        .base_url(service.base_url())
        .token(&service.service_token)
        .retry(RetryPolicy {
            max_attempts: 5,
            ..RetryPolicy::default()
        })
        .build()
        .expect("client");
    for n in 0..6 {
        patient
            .list_workflow_dlq()
            .send()
            .await
            .unwrap_or_else(|e| panic!("request {n} should succeed after waiting: {e}"));
    }

    let impatient = messaging::Client::builder()
        .base_url(service.base_url())
        .token(&service.service_token)
        .retry(RetryPolicy::none())
        .build()
        .expect("client");
    let mut refused = None;
    for _ in 0..5 {
        if let Err(error) = impatient.list_workflow_dlq().send().await {
            refused = Some(error);
            break;
        }
    }
    let refused = refused.expect("without retries a 429 reaches the caller");
    assert_eq!(refused.status, Some(429));
    assert!(refused.retryable);
    assert!(
        refused.to_string().contains("429 Too Many Requests"),
        "{refused}"
    );
}
