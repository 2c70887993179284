//! Contract tests: courier-client against the real courier service over HTTP on a real socket.
//!
//! The service runs in-process ([`TestService`]) on an ephemeral port with a temporary SQLite
//! store; data goes in through the admin API and comes out only through the generated client.

mod common;
use courier_service::time::now_ms;

use courier_client::models::*;
use courier_client::{CourierError, management, messaging};
use courier_service::testing::TestService;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::num::NonZeroU64;

fn messaging_client(service: &TestService) -> messaging::Client {
    messaging::Client::with_token(&service.base_url(), &service.service_token)
}

fn management_client(service: &TestService) -> management::Client {
    management::Client::with_credentials(
        &service.base_url(),
        &service.customer_id,
        &service.management_key,
    )
}

fn status(error: &CourierError) -> u16 {
    error.status.unwrap_or_default()
}

/// A failed run in the admin API's input shape (2.2 without `dlqId`).
fn run(i: usize, created_at: i64) -> Value {
    let workflow = [
        "https://a.example/wf",
        "https://b.example/wf",
        "https://c.example/wf",
    ][i % 3];
    let state = [
        "CALLBACK_INPROGRESS",
        "CALLBACK_SUCCESS",
        "CALLBACK_FAIL",
        "CALLBACK_CANCELED",
    ][i % 4];
    json!({
        "url": format!("{workflow}/step-{}", i % 5),
        "method": "POST",
        "header": {"Content-Type": ["application/json"]},
        "body": format!("{{\"n\":{i}}}"),
        "maxRetries": 3,
        "createdAt": created_at,
        "callerIP": format!("10.0.0.{}", i % 4),
        "workflowRunId": format!("wfr_{:05}", i / 2),
        "workflowCreatedAt": created_at - 1000,
        "workflowUrl": workflow,
        "flowControlKey": format!("key-{}", i % 2),
        "labels": [format!("label-{}", i % 5)],
        "failureCallback": format!("{workflow}/failure"),
        "failureCallbackInfo": {"state": state, "responseStatus": 500}
    })
}

/// Follows the cursor through every page of a list request; returns the ids in order.
async fn list_all(
    client: &messaging::Client,
    configure: impl Fn(
        messaging::builder::ListWorkflowDlq<'_>,
    ) -> messaging::builder::ListWorkflowDlq<'_>,
) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut request =
            configure(client.list_workflow_dlq()).count(NonZeroU64::new(100).expect("nonzero"));
        if let Some(cursor) = &cursor {
            request = request.cursor(cursor.clone());
        }
        let page = request.send().await.expect("list").into_inner();
        assert!(page.messages.len() <= 100);
        ids.extend(page.messages.into_iter().map(|m| m.dlq_id));
        match page.cursor {
            Some(next) if !next.is_empty() => cursor = Some(next),
            _ => return ids,
        }
    }
}

#[tokio::test]
async fn pagination_and_filters_over_1050_entries_match_a_direct_filter() {
    let service = TestService::start().await;
    let base = now_ms() - 3_600_000;
    let inputs: Vec<Value> = (0..1050).map(|i| run(i, base + i as i64)).collect();
    let ids = service.insert_dlq(&inputs).await;
    assert_eq!(ids.len(), 1050);
    let client = messaging_client(&service);

    let all = list_all(&client, |r| r).await;
    assert_eq!(all.len(), 1050, "every entry once");
    assert_eq!(
        all.iter().collect::<BTreeSet<_>>().len(),
        1050,
        "no duplicates"
    );
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "ascending dlqId order");

    // Expected sets computed directly from the inserted data.
    let by_index = |keep: &dyn Fn(usize) -> bool| -> BTreeSet<String> {
        (0..1050)
            .filter(|i| keep(*i))
            .map(|i| ids[i].clone())
            .collect()
    };
    let filtered = list_all(&client, |r| {
        r.workflow_url(vec![
            "https://a.example/wf".into(),
            "https://b.example/wf".into(),
        ])
    })
    .await;
    assert_eq!(
        filtered.into_iter().collect::<BTreeSet<_>>(),
        by_index(&|i| i % 3 != 2)
    );
    let filtered = list_all(&client, |r| {
        r.label(vec!["label-1".into()])
            .caller_ip(vec!["10.0.0.1".into(), "10.0.0.3".into()])
    })
    .await;
    assert_eq!(
        filtered.into_iter().collect::<BTreeSet<_>>(),
        by_index(&|i| i % 5 == 1 && i % 2 == 1)
    );
    let filtered = list_all(&client, |r| {
        r.failure_function_state(vec![FailureFunctionState::CallbackFail])
            .flow_control_key(vec!["key-0".into()])
            .from_date(base + 100)
            .to_date(base + 900)
    })
    .await;
    assert_eq!(
        filtered.into_iter().collect::<BTreeSet<_>>(),
        by_index(&|i| i % 4 == 2 && i % 2 == 0 && (100..=900).contains(&i))
    );
    let filtered = list_all(&client, |r| r.workflow_run_id("wfr_00007")).await;
    assert_eq!(
        filtered.into_iter().collect::<BTreeSet<_>>(),
        by_index(&|i| i / 2 == 7)
    );
    let filtered = list_all(&client, |r| r.workflow_created_at(base + 41 - 1000)).await;
    assert_eq!(filtered, [ids[41].clone()]);
}

#[tokio::test]
async fn paging_while_others_insert_and_delete_never_repeats_or_skips_stable_entries() {
    let service = TestService::start().await;
    let base = now_ms() - 3_600_000;
    let ids = service
        .insert_dlq(
            &(0..600)
                .map(|i| run(i, base + i as i64))
                .collect::<Vec<_>>(),
        )
        .await;
    let client = messaging_client(&service);
    // Entries 0..300 stay for the whole scan; 300..600 are deleted while paging.
    let stable: BTreeSet<String> = ids[..300].iter().cloned().collect();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut round = 0;
    loop {
        let mut request = client
            .list_workflow_dlq()
            .count(NonZeroU64::new(50).expect("nonzero"));
        if let Some(cursor) = &cursor {
            request = request.cursor(cursor.clone());
        }
        let page = request.send().await.expect("list").into_inner();
        seen.extend(page.messages.into_iter().map(|m| m.dlq_id));
        round += 1;
        // Concurrent changes between pages: new entries arrive, volatile ones go.
        service
            .insert_dlq(&[run(10_000 + round, base + 5000 + round as i64)])
            .await;
        let volatile: Vec<String> = ids[300..]
            .iter()
            .skip(round * 20)
            .take(20)
            .cloned()
            .collect();
        client
            .delete_workflow_dlq_bulk()
            .dlq_ids(volatile)
            .send()
            .await
            .expect("delete");
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let seen_set: BTreeSet<String> = seen.iter().cloned().collect();
    assert_eq!(seen.len(), seen_set.len(), "no entry was served twice");
    assert!(
        stable.is_subset(&seen_set),
        "every entry present throughout was served"
    );
}

#[tokio::test]
async fn get_one_returns_every_field_and_404_when_gone() {
    let service = TestService::start().await;
    let mut input = run(1, now_ms() - 1000);
    input["bodyBase64"] = json!("//4AAQ==");
    input.as_object_mut().expect("object").remove("body");
    input["label"] = json!("legacy");
    input["failureCallbackHeader"] = json!({"X-Callback": ["1"]});
    input["notBefore"] = json!(now_ms());
    input["responseBodyBase64"] = json!("gAE=");
    input["responseStatus"] = json!(502);
    let id = service.insert_dlq(&[input.clone()]).await.remove(0);
    let client = messaging_client(&service);
    let run = client
        .get_workflow_dlq()
        .dlq_id(&id)
        .send()
        .await
        .expect("get")
        .into_inner();
    let got = serde_json::to_value(&run).expect("json");
    for (key, value) in input.as_object().expect("object") {
        assert_eq!(&got[key], value, "field {key}");
    }
    assert_eq!(run.dlq_id, id);
    assert!(!run.message_id.is_empty());
    assert_eq!(
        run.failure_callback_info.as_ref().map(|i| i.state),
        Some(FailureFunctionState::CallbackSuccess)
    );

    let listed = client
        .list_workflow_dlq()
        .send()
        .await
        .expect("list")
        .into_inner();
    assert_eq!(
        listed.messages[0].failure_function_state,
        Some(FailureFunctionState::CallbackSuccess)
    );
    assert_eq!(listed.messages[0].body_base64.as_deref(), Some("//4AAQ=="));
    assert_eq!(
        listed.cursor, None,
        "the cursor key is omitted on the last page"
    );

    client
        .delete_dlq_message()
        .dlq_id(&id)
        .send()
        .await
        .expect("delete one");
    let gone = client
        .get_workflow_dlq()
        .dlq_id(&id)
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&gone), 404);
    let again = client
        .delete_dlq_message()
        .dlq_id(&id)
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&again), 404);
}

#[tokio::test]
async fn bulk_delete_in_batches_until_empty_and_by_ids() {
    let service = TestService::start().await;
    let base = now_ms() - 3_600_000;
    let ids = service
        .insert_dlq(
            &(0..450)
                .map(|i| run(i, base + i as i64))
                .collect::<Vec<_>>(),
        )
        .await;
    let client = messaging_client(&service);

    let by_ids = client
        .delete_workflow_dlq_bulk()
        .dlq_ids(vec![ids[0].clone(), ids[1].clone(), "nope".into()])
        .label(vec!["ignored".into()])
        .send()
        .await
        .expect("by ids");
    assert_eq!((by_ids.deleted, by_ids.cursor.clone()), (2, None));

    // Filter: label-2 only (90 entries), batches of 25.
    let mut deleted = 0;
    let mut batches = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut request = client
            .delete_workflow_dlq_bulk()
            .label(vec!["label-2".into()])
            .count(NonZeroU64::new(25).expect("nonzero"));
        if let Some(c) = &cursor {
            request = request.cursor(c.clone());
        }
        let result = request.send().await.expect("batch").into_inner();
        assert!(result.deleted <= 25);
        deleted += result.deleted;
        batches += 1;
        match result.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(deleted, 90);
    assert!(batches >= 4, "{batches} batches");
    assert!(
        list_all(&client, |r| r.label(vec!["label-2".into()]))
            .await
            .is_empty()
    );
    assert_eq!(list_all(&client, |r| r).await.len(), 450 - 2 - 90);

    let bad = client
        .delete_workflow_dlq_bulk()
        .cursor("not-a-cursor")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&bad), 400);
}

#[tokio::test]
async fn cancel_removes_the_run_and_its_entries_then_404() {
    let service = TestService::start().await;
    let base = now_ms() - 1000;
    service
        .insert_dlq(&(0..6).map(|i| run(i, base + i as i64)).collect::<Vec<_>>())
        .await;
    let client = messaging_client(&service);
    client
        .cancel_workflow_run()
        .workflow_run_id("wfr_00001")
        .cancel(true)
        .send()
        .await
        .expect("cancel");
    assert!(
        list_all(&client, |r| r.workflow_run_id("wfr_00001"))
            .await
            .is_empty()
    );
    assert_eq!(list_all(&client, |r| r).await.len(), 4);
    let again = client
        .cancel_workflow_run()
        .workflow_run_id("wfr_00001")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&again), 404);

    let response = service
        .admin(reqwest::Method::POST, "/runs")
        .json(&json!([{"workflowRunId": "wfr_active", "workflowUrl": "https://a.example/wf", "workflowCreatedAt": base}]))
        .send()
        .await
        .expect("runs");
    assert_eq!(response.status(), 201);
    client
        .cancel_workflow_run()
        .workflow_run_id("wfr_active")
        .send()
        .await
        .expect("cancel an active run");
}

async fn patch_account(service: &TestService, patch: Value) -> reqwest::Response {
    service
        .admin(reqwest::Method::PATCH, "/account")
        .json(&patch)
        .send()
        .await
        .expect("patch")
}

#[tokio::test]
async fn retention_and_dlq_size_limits_come_from_the_account() {
    let service = TestService::start().await;
    let now = now_ms();
    let client = messaging_client(&service);
    assert_eq!(
        patch_account(&service, json!({"max_dlq_retention_time_milis": 60_000}))
            .await
            .status(),
        200
    );
    let ids = service
        .insert_dlq(&[run(0, now - 120_000), run(1, now - 1000)])
        .await;
    assert_eq!(
        status(
            &client
                .get_workflow_dlq()
                .dlq_id(&ids[0])
                .send()
                .await
                .unwrap_err()
        ),
        404,
        "past retention"
    );
    assert_eq!(list_all(&client, |r| r).await, [ids[1].clone()]);
    let stats = management_client(&service)
        .get_account_stats()
        .send()
        .await
        .expect("stats");
    assert_eq!(stats.dlq_message_count, 1);

    assert_eq!(
        patch_account(
            &service,
            json!({"max_dlq_retention_time_milis": 86_400_000, "max_dlq_size": 3})
        )
        .await
        .status(),
        200
    );
    let more = service
        .insert_dlq(
            &(2..6)
                .map(|i| run(i, now - 500 + i as i64))
                .collect::<Vec<_>>(),
        )
        .await;
    let listed: BTreeSet<String> = list_all(&client, |r| r).await.into_iter().collect();
    assert_eq!(
        listed,
        more[1..].iter().cloned().collect::<BTreeSet<_>>(),
        "the oldest were evicted"
    );
}

#[tokio::test]
async fn rotation_rejects_the_old_token_at_once_and_survives_a_restart() {
    let mut service = TestService::start().await;
    let old = messaging_client(&service);
    old.list_workflow_dlq()
        .send()
        .await
        .expect("old token works before rotation");
    let rotated = management_client(&service)
        .rotate_token()
        .send()
        .await
        .expect("rotate")
        .into_inner();
    assert_ne!(rotated.token, service.service_token);
    assert_eq!(rotated.customer_id, service.customer_id);
    assert_eq!(
        status(&old.list_workflow_dlq().send().await.unwrap_err()),
        401
    );
    let new = messaging::Client::with_token(&service.base_url(), &rotated.token);
    new.list_workflow_dlq()
        .send()
        .await
        .expect("new token works");

    service.restart().await;
    assert_eq!(
        service.service_token, rotated.token,
        "the store kept the rotated token"
    );
    assert_eq!(
        status(&old.list_workflow_dlq().send().await.unwrap_err()),
        401
    );
    new.list_workflow_dlq()
        .send()
        .await
        .expect("new token works after restart");
    // Rotation does not touch the management key.
    management_client(&service)
        .get_account_stats()
        .send()
        .await
        .expect("management key unchanged");
}

#[tokio::test]
async fn data_survives_a_restart() {
    let mut service = TestService::start().await;
    let ids = service
        .insert_dlq(
            &(0..20)
                .map(|i| run(i, now_ms() - 1000 + i as i64))
                .collect::<Vec<_>>(),
        )
        .await;
    let put = service
        .admin(reqwest::Method::PUT, "/topics/orders")
        .json(&json!({"endpoints": [{"name": "a", "url": "https://a.example"}]}))
        .send()
        .await
        .expect("topic");
    assert_eq!(put.status(), 200);
    service.restart().await;
    let client = messaging_client(&service);
    assert_eq!(list_all(&client, |r| r).await, ids);
    assert_eq!(
        client
            .get_url_group()
            .url_group_name("orders")
            .send()
            .await
            .expect("group")
            .endpoints
            .len(),
        1
    );
}

#[tokio::test]
async fn url_groups_and_search_indexes() {
    let service = TestService::start().await;
    let client = messaging_client(&service);
    assert_eq!(
        status(
            &client
                .get_url_group()
                .url_group_name("orders")
                .send()
                .await
                .unwrap_err()
        ),
        404
    );
    let put = service
        .admin(reqwest::Method::PUT, "/topics/orders")
        .json(&json!({"endpoints": [{"name": "billing", "url": "https://billing.example"}, {"name": "", "url": "https://x.example"}]}))
        .send()
        .await
        .expect("topic");
    assert_eq!(put.status(), 200);
    let group = client
        .get_url_group()
        .url_group_name("orders")
        .send()
        .await
        .expect("group")
        .into_inner();
    assert_eq!(
        group
            .endpoints
            .iter()
            .map(|e| e.url.as_str())
            .collect::<Vec<_>>(),
        ["https://billing.example", "https://x.example"]
    );
    assert!(group.created_at > 0 && group.updated_at >= group.created_at);

    let id = "0f8b1a5e-9d7c-4f57-8d7e-4d2b3b1c0a11";
    let index = common::search_index_json(&service.customer_id);
    let put = service
        .admin(reqwest::Method::PUT, &format!("/search/{id}"))
        .json(&index)
        .send()
        .await
        .expect("index");
    assert_eq!(
        put.status(),
        200,
        "{}",
        put.text().await.unwrap_or_default()
    );
    let management = management_client(&service);
    let got = management
        .get_search_index()
        .id(id)
        .send()
        .await
        .expect("index")
        .into_inner();
    assert_eq!(
        (
            got.name.as_str(),
            got.type_,
            got.region,
            got.max_daily_queries
        ),
        ("products", IndexType::Payg, IndexRegion::EuWest1, -1)
    );
    assert_eq!(
        status(
            &management
                .get_search_index()
                .id("nope")
                .send()
                .await
                .unwrap_err()
        ),
        404
    );
    for period in StatsPeriod::ALL {
        let stats = management
            .get_search_index_stats()
            .id(id)
            .period(period)
            .send()
            .await
            .expect("index stats")
            .into_inner();
        assert_eq!(
            stats.query_throughput.len() as i64,
            period.data_points(),
            "{period}"
        );
        assert_eq!(stats.days.len(), stats.daily_query_requests.len());
    }
    assert_eq!(
        status(
            &management
                .get_search_index_stats()
                .id("nope")
                .send()
                .await
                .unwrap_err()
        ),
        404
    );
}

/// Parses `YYYY-MM-DD HH:MM:SS.mmm +0000 UTC` into Unix milliseconds (decision 8).
fn parse_x(x: &str) -> i64 {
    let rest = x
        .strip_suffix(" +0000 UTC")
        .unwrap_or_else(|| panic!("zone text in {x}"));
    assert_eq!(rest.len(), 23, "{x}");
    let number = |range: std::ops::Range<usize>| {
        rest[range].parse::<i64>().unwrap_or_else(|_| panic!("{x}"))
    };
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let (hour, minute, second, milli) = (
        number(11..13),
        number(14..16),
        number(17..19),
        number(20..23),
    );
    // days_from_civil
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli
}

#[tokio::test]
async fn account_stats_for_every_period_follow_the_data_point_rules() {
    let service = TestService::start().await;
    service
        .insert_dlq(&(0..7).map(|i| run(i, now_ms() - 1000)).collect::<Vec<_>>())
        .await;
    let client = messaging_client(&service);
    for _ in 0..5 {
        client.list_workflow_dlq().send().await.expect("list");
    }
    let management = management_client(&service);
    for period in StatsPeriod::ALL {
        let before = now_ms();
        let stats = management
            .get_account_stats()
            .period(period)
            .send()
            .await
            .expect("stats")
            .into_inner();
        let after = now_ms();
        let expected_points = if period == StatsPeriod::ThirtyDays {
            240
        } else {
            60
        };
        for (name, series) in [
            ("daily_used", &stats.daily_used),
            ("daily_used_workflow", &stats.daily_used_workflow),
            ("daily_bandwidth_used", &stats.daily_bandwidth_used),
        ] {
            assert_eq!(series.len(), expected_points, "{period} {name}");
            let times: Vec<i64> = series.iter().map(|p| parse_x(&p.x)).collect();
            let spacing = period.interval_seconds() * 1000;
            assert!(
                times.windows(2).all(|w| w[1] - w[0] == spacing),
                "{period} {name}: spacing"
            );
            assert_eq!(times[0] % spacing, 0, "{period} {name}: aligned");
            let last = *times.last().expect("points");
            assert!(
                last <= after && before < last + spacing,
                "{period} {name}: ends now"
            );
        }
        for named in stats
            .daily_svc_messages
            .iter()
            .chain(&stats.daily_workflow_messages)
        {
            assert_eq!(
                named.data_points.len(),
                expected_points,
                "{period} {}",
                named.id
            );
        }
        let svc_ids: Vec<&str> = stats
            .daily_svc_messages
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(svc_ids, ["delivered", "failed", "retried", "canceled"]);
        let failed: f64 = stats.daily_svc_messages[1]
            .data_points
            .iter()
            .map(|p| p.y)
            .sum();
        assert_eq!(failed, 7.0, "{period}: the 7 inserted failed runs");
        let used: f64 = stats.daily_used.iter().map(|p| p.y).sum();
        assert!(
            used >= 5.0,
            "{period}: the requests served were recorded ({used})"
        );
        assert_eq!(stats.dlq_message_count, 7);
        let days_in_month = stats.days.len();
        assert!((28..=31).contains(&days_in_month));
        for (name, len) in [
            ("daily_requests", stats.daily_requests.len()),
            ("daily_billings", stats.daily_billings.len()),
            ("daily_bandwidths", stats.daily_bandwidths.len()),
        ] {
            assert_eq!(len, days_in_month, "{name} aligns with days");
        }
        assert!(parse_x(&stats.daily_requests[0].x) % 86_400_000 == 0);
    }
}

#[tokio::test]
async fn admin_input_is_validated_and_nothing_partial_is_stored() {
    let service = TestService::start().await;
    let client = messaging_client(&service);
    let mut bad = run(1, now_ms());
    bad.as_object_mut().expect("object").remove("url");
    let response = service
        .admin(reqwest::Method::POST, "/dlq")
        .json(&json!([run(0, now_ms()), bad]))
        .send()
        .await
        .expect("insert");
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("json");
    assert!(
        body["error"].as_str().expect("error").contains("entry 1"),
        "{body}"
    );
    assert!(
        list_all(&client, |r| r).await.is_empty(),
        "the good entry of the bad batch was not stored"
    );

    let response = service
        .admin(reqwest::Method::PATCH, "/account")
        .json(&json!({"token": "steal"}))
        .send()
        .await
        .expect("patch");
    assert_eq!(response.status(), 400);
    let response = service
        .admin(reqwest::Method::POST, "/dlq")
        .header("content-type", "application/json")
        .body("[{")
        .send()
        .await
        .expect("insert");
    assert_eq!(response.status(), 400);
    let unauthorized = reqwest::Client::new()
        .post(format!("{}/admin/v1/dlq", service.base_url()))
        .json(&json!([]))
        .send()
        .await
        .expect("insert");
    assert_eq!(unauthorized.status(), 401);
    let health = reqwest::get(format!("{}/health", service.base_url()))
        .await
        .expect("health");
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn unknown_paths_and_wrong_methods_get_json_404_and_405() {
    let service = TestService::start().await;
    let http = reqwest::Client::new();
    let response = http
        .get(format!("{}/v2/workflows/dlqs", service.base_url()))
        .bearer_auth(&service.service_token)
        .send()
        .await
        .expect("404");
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.expect("json");
    assert!(
        body["error"]
            .as_str()
            .expect("error")
            .contains("/v2/workflows/dlqs")
    );
    let response = http
        .post(format!("{}/v2/topics/orders", service.base_url()))
        .bearer_auth(&service.service_token)
        .send()
        .await
        .expect("405");
    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["allow"], "GET,HEAD");
    let body: Value = response.json().await.expect("json");
    assert!(body["error"].as_str().expect("error").contains("POST"));
}
