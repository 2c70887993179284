//! The account's two limits (`docs/decisions.md#d18-rate-limit-headers`): `max_requests_per_second`
//! answers 429 with `Burst-RateLimit-*`, `max_requests_per_day_hard` with `RateLimit-*`, both with
//! `Retry-After`; and a client whose retries honour them.

use crate::common;

use common::fails;
use courier_client::{RetryPolicy, messaging};
use courier_service::testing::TestService;
use serde_json::json;

async fn limit_to(service: &TestService, per_second: u64) {
    service
        .patch_account(json!({"max_requests_per_second": per_second}))
        .await;
}

/// A list request without the client (which would retry), as the service answers it.
async fn list_once(http: &reqwest::Client, service: &TestService) -> reqwest::Response {
    http.get(format!("{}/v2/workflows/dlq", service.base_url()))
        .bearer_auth(&service.service_token)
        .send()
        .await
        .expect("request")
}

/// The `error` message of a refusal.
async fn error_message(response: reqwest::Response) -> String {
    let body: serde_json::Value = response.json().await.expect("json");
    body["error"].as_str().expect("error").to_owned()
}

fn client_with(service: &TestService, retry: RetryPolicy) -> messaging::Client {
    messaging::Client::builder()
        .base_url(service.base_url())
        .token(&service.service_token)
        .retry(retry)
        .build()
        .expect("client")
}

fn retrying_five_times() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 5,
        ..RetryPolicy::default()
    }
}

fn header(response: &reqwest::Response, name: &str) -> Option<u64> {
    response.headers().get(name)?.to_str().ok()?.parse().ok()
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

/// `docs/decisions.md#d18-rate-limit-headers`: the per-second limit answers 429 with
/// `Burst-RateLimit-*` and `Retry-After` and no `RateLimit-*` (which the official clients read as
/// the daily limit); successes carry both.
#[tokio::test]
async fn the_per_second_limit_is_signalled_with_burst_headers_only() {
    let service = TestService::start().await;
    limit_to(&service, 3).await;
    let http = reqwest::Client::new();
    let mut statuses = Vec::new();
    for _ in 0..10 {
        let response = list_once(&http, &service).await;
        assert_eq!(header(&response, "burst-ratelimit-limit"), Some(3));
        let reset = header(&response, "burst-ratelimit-reset").expect("Burst-RateLimit-Reset");
        assert!(
            (unix_now()..=unix_now() + 2).contains(&reset),
            "a Unix time: {reset}"
        );
        let status = response.status().as_u16();
        if status == 429 {
            assert_eq!(header(&response, "burst-ratelimit-remaining"), Some(0));
            assert_eq!(header(&response, "retry-after"), Some(1));
            for daily in ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"] {
                assert!(
                    response.headers().get(daily).is_none(),
                    "{daily} on a per-second 429"
                );
            }
            let message = error_message(response).await;
            assert!(message.contains("max_requests_per_second"), "{message}");
        } else {
            assert!(header(&response, "burst-ratelimit-remaining").expect("remaining") < 3);
            assert_eq!(
                header(&response, "ratelimit-limit"),
                Some(2_000_000),
                "the daily limit on a success"
            );
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
    let response = list_once(&http, &service).await;
    assert_eq!(
        (
            response.status().as_u16(),
            header(&response, "burst-ratelimit-limit")
        ),
        (200, Some(1000))
    );
}

/// `docs/decisions.md#d18-rate-limit-headers`: the hard daily limit is enforced per UTC day and
/// answers 429 with `RateLimit-*` (reset at the next UTC midnight) and `Retry-After`; the Rust
/// client does not retry it.
#[tokio::test]
async fn the_daily_limit_is_enforced_and_signalled_with_rate_limit_headers() {
    let service = TestService::start().await;
    service
        .patch_account(json!({"max_requests_per_day_hard": 4}))
        .await;
    let http = reqwest::Client::new();
    let mut refused = None;
    for n in 0..8 {
        let response = list_once(&http, &service).await;
        if response.status() == 429 {
            assert!(n >= 4, "only {n} requests admitted");
            refused = Some(response);
            break;
        }
    }
    let refused = refused.expect("the fifth request of the day is refused");
    assert_eq!(header(&refused, "ratelimit-limit"), Some(4));
    assert_eq!(header(&refused, "ratelimit-remaining"), Some(0));
    let midnight = (unix_now() / 86_400 + 1) * 86_400;
    assert_eq!(header(&refused, "ratelimit-reset"), Some(midnight));
    let retry_after = header(&refused, "retry-after").expect("Retry-After");
    assert!(
        retry_after <= midnight - unix_now() + 1 && retry_after > 0,
        "{retry_after}"
    );
    let message = error_message(refused).await;
    assert!(message.contains("max_requests_per_day_hard"), "{message}");

    // The client sees at once that waiting seconds cannot help: no retry, the 429 reported.
    let client = client_with(&service, retrying_five_times());
    let started = std::time::Instant::now();
    let error = fails("daily limit", client.list_workflow_dlq().send()).await;
    assert_eq!(error.status, Some(429));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "not retried"
    );
    // Raising the limit lets requests through again the same day.
    service
        .patch_account(json!({"max_requests_per_day_hard": 1000}))
        .await;
    client
        .list_workflow_dlq()
        .send()
        .await
        .expect("admitted again");
}

#[tokio::test]
async fn the_client_retries_after_429_and_reports_it_when_retries_are_off() {
    let service = TestService::start().await;
    limit_to(&service, 2).await;
    let patient = client_with(&service, retrying_five_times());
    for n in 0..6 {
        patient
            .list_workflow_dlq()
            .send()
            .await
            .unwrap_or_else(|e| panic!("request {n} should succeed after waiting: {e}"));
    }

    let impatient = client_with(&service, RetryPolicy::none());
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
    assert!(refused.is_rate_limited());
    let asked = refused
        .retry_after()
        .expect("the wait the service asked for");
    assert!(
        asked <= std::time::Duration::from_secs(1),
        "the per-second window: {asked:?}"
    );
    // The status is said once, not "429 Too Many Requests: too many requests: …".
    assert!(
        refused
            .to_string()
            .starts_with("429: too many requests: the account's max_requests_per_second"),
        "{refused}"
    );
}

/// Forty calls at once against a limit of five a second: the default policy waits out the
/// short 429s at the limit's pace, so every call gets through; a client that counts each 429 as
/// an attempt (the old behaviour, `rate_limit_patience: ZERO`) loses most of them.
#[tokio::test]
async fn a_burst_over_the_per_second_limit_gets_through_with_the_default_policy() {
    const CALLS: usize = 40;
    const PER_SECOND: u64 = 5;
    let service = TestService::start().await;
    limit_to(&service, PER_SECOND).await;

    let burst = |policy: RetryPolicy| {
        let client = client_with(&service, policy);
        async move {
            let calls = (0..CALLS).map(|_| {
                let client = client.clone();
                tokio::spawn(async move { client.list_workflow_dlq().send().await })
            });
            let mut failed = Vec::new();
            for call in futures::future::join_all(calls).await {
                if let Err(error) = call.expect("task") {
                    failed.push(error.to_string());
                }
            }
            failed
        }
    };

    let started = std::time::Instant::now();
    let failed = burst(RetryPolicy::default()).await;
    let took = started.elapsed();
    assert!(
        failed.is_empty(),
        "{} of {CALLS} failed: {failed:?}",
        failed.len()
    );
    // Forty calls at five a second cannot finish in fewer than seven whole windows: the limit
    // was really exercised, not lifted.
    let windows = (CALLS as u64).div_ceil(PER_SECOND) - 1;
    assert!(
        took >= std::time::Duration::from_secs(windows - 1),
        "{CALLS} calls at {PER_SECOND}/s took only {took:?}"
    );

    let counting_each_429 = RetryPolicy {
        rate_limit_patience: std::time::Duration::ZERO,
        ..RetryPolicy::default()
    };
    let failed = burst(counting_each_429).await;
    assert!(
        failed.len() >= CALLS / 2,
        "three attempts each cannot carry {CALLS} calls through {PER_SECOND}/s: only {} failed",
        failed.len()
    );
    assert!(
        failed.iter().all(|message| message.starts_with("429: ")),
        "{failed:?}"
    );
}
