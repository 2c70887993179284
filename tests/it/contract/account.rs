//! The account: limits, rotation, restarts, URL groups and indexes, statistics, admin input,
//! unknown paths.

use super::*;

#[tokio::test]
async fn retention_and_dlq_size_limits_come_from_the_account() {
    let service = TestService::start().await;
    let now = now_ms();
    let client = messaging_client(&service);
    service
        .patch_account(json!({"max_dlq_retention_time_milis": 60_000}))
        .await;
    let ids = service
        .insert_dlq(&[run(0, now - 120_000), run(1, now - 1000)])
        .await;
    assert_eq!(
        refused(
            "get past retention",
            client.get_workflow_dlq().dlq_id(&ids[0]).send()
        )
        .await,
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

    service
        .patch_account(json!({"max_dlq_retention_time_milis": 86_400_000, "max_dlq_size": 3}))
        .await;
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
        refused("list with the old token", old.list_workflow_dlq().send()).await,
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
        refused("list with the old token", old.list_workflow_dlq().send()).await,
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
    let (status, answer) = service
        .admin_call(
            reqwest::Method::PUT,
            "/topics/orders",
            &json!({"endpoints": [{"name": "a", "url": "https://a.example"}]}),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
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
    let get_group = |name: &str| client.get_url_group().url_group_name(name).send();
    assert_eq!(refused("an unknown group", get_group("orders")).await, 404);
    let endpoints = json!({"endpoints": [{"name": "billing", "url": "https://billing.example"}, {"name": "", "url": "https://x.example"}]});
    let (put, answer) = service
        .admin_call(reqwest::Method::PUT, "/topics/orders", &endpoints)
        .await;
    assert_eq!(put, 200, "{answer}");
    let group = ok("group", get_group("orders")).await;
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
    let (put, answer) = service
        .admin_call(reqwest::Method::PUT, &format!("/search/{id}"), &index)
        .await;
    assert_eq!(put, 200, "{answer}");
    let management = management_client(&service);
    let get_index = |id: &str| management.get_search_index().id(id).send();
    let get_stats = |id: &str| management.get_search_index_stats().id(id);
    let got = ok("index", get_index(id)).await;
    assert_eq!(
        (
            got.name.as_str(),
            got.type_,
            got.region,
            got.max_daily_queries
        ),
        ("products", IndexType::Payg, IndexRegion::EuWest1, -1)
    );
    assert_eq!(refused("an unknown index", get_index("nope")).await, 404);
    for period in StatsPeriod::ALL {
        let stats = ok("index stats", get_stats(id).period(period).send()).await;
        assert_eq!(
            stats.query_throughput.len() as i64,
            period.data_points(),
            "{period}"
        );
        assert_eq!(stats.days.len(), stats.daily_query_requests.len());
    }
    let unknown = refused("stats of an unknown index", get_stats("nope").send()).await;
    assert_eq!(unknown, 404);
}

/// Parses `YYYY-MM-DD HH:MM:SS.mmm +0000 UTC` into Unix milliseconds
/// (`docs/decisions.md#d8-data-point-time`).
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
        let stats = ok(
            "stats",
            management.get_account_stats().period(period).send(),
        )
        .await;
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
    let (refused, body) = service
        .admin_call(
            reqwest::Method::POST,
            "/dlq",
            &json!([run(0, now_ms()), bad]),
        )
        .await;
    assert_eq!(refused, 400, "{body}");
    assert!(
        body["error"].as_str().expect("error").contains("entry 1"),
        "{body}"
    );
    assert!(
        list_all(&client, |r| r).await.is_empty(),
        "the good entry of the bad batch was not stored"
    );

    let (status, answer) = service
        .admin_call(
            reqwest::Method::PATCH,
            "/account",
            &json!({"token": "steal"}),
        )
        .await;
    assert_eq!(status, 400, "{answer}");
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
    let send = |method, path: &str| {
        let request = http.request(method, format!("{}{path}", service.base_url()));
        request.bearer_auth(&service.service_token).send()
    };
    let response = send(reqwest::Method::GET, "/v2/workflows/dlqs")
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
    let response = send(reqwest::Method::POST, "/v2/topics/orders")
        .await
        .expect("405");
    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["allow"], "GET,HEAD");
    let body: Value = response.json().await.expect("json");
    assert!(body["error"].as_str().expect("error").contains("POST"));
}
