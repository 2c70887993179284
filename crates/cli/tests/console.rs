//! The console over real HTTP against the real `courier serve --demo` binary, without a
//! browser: who gets in (login, cookie flags, Basic, redirects), the cross-site guard, and that
//! its pages show what the API answers and its actions change what the API sees.

mod common;

use common::Courier;
use courier_service::demo::{DEMO_CUSTOMER_ID, DEMO_MANAGEMENT_KEY, DEMO_SERVICE_TOKEN};
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, LOCATION, SET_COOKIE};

fn start(extra: &[&str]) -> (Courier, tempfile::TempDir) {
    let data = tempfile::tempdir().expect("tempdir");
    let courier = Courier::spawn(
        common::courier_serve(data.path())
            .arg("--demo")
            .args(extra)
            .env("RUST_LOG", "warn"),
    );
    (courier, data)
}

/// A client that shows redirects instead of following them, so the tests can assert on them.
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// Signs in through the login form; returns the `name=value` of the session cookie and the
/// whole `Set-Cookie` line.
async fn sign_in(base: &str) -> (String, String) {
    let response = client()
        .post(format!("{base}/console/login"))
        .form(&[
            ("username", DEMO_CUSTOMER_ID),
            ("password", DEMO_MANAGEMENT_KEY),
            ("next", "/console/stats"),
        ])
        .send()
        .await
        .expect("login");
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(response.headers()), "/console/stats");
    let set_cookie = response
        .headers()
        .get(SET_COOKIE)
        .expect("login sets a cookie")
        .to_str()
        .expect("ascii")
        .to_owned();
    let pair = set_cookie.split(';').next().expect("name=value").to_owned();
    (pair, set_cookie)
}

/// The demo service with a session signed in to its console: the service, its data directory
/// and the session cookie.
async fn signed_in() -> (Courier, tempfile::TempDir, String) {
    let (courier, data) = start(&[]);
    let (cookie, _) = sign_in(&courier.management).await;
    (courier, data, cookie)
}

/// Posts a form of the page `html` (its CSRF token, nothing else) to `path`, signed in;
/// asserts the redirect that answers an action and returns where it points.
async fn submit(base: &str, path: &str, cookie: &str, html: &str) -> String {
    let response = send(
        client()
            .post(format!("{base}{path}"))
            .header("cookie", cookie)
            .form(&[("csrf", csrf(html).as_str())]),
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER, "{path}");
    location(response.headers()).to_owned()
}

fn location(headers: &HeaderMap) -> &str {
    headers
        .get(LOCATION)
        .and_then(|l| l.to_str().ok())
        .unwrap_or("")
}

/// Sends a request; a transport error fails the test, since every test here expects an answer.
async fn send(request: reqwest::RequestBuilder) -> reqwest::Response {
    request.send().await.expect("the service answers")
}

async fn page(base: &str, path: &str, cookie: &str) -> (StatusCode, String) {
    let response = send(
        client()
            .get(format!("{base}{path}"))
            .header("cookie", cookie),
    )
    .await;
    let status = response.status();
    (status, response.text().await.expect("body"))
}

/// The `data-dlq-id`s of a console page, in page order.
fn row_ids(html: &str) -> Vec<String> {
    html.split("data-dlq-id=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap_or("").to_owned())
        .collect()
}

/// The value of the first `attribute="…"` after `marker`.
fn attribute_after(html: &str, marker: &str, attribute: &str) -> Option<String> {
    let rest = &html[html.find(marker)?..];
    let rest = &rest[rest.find(&format!("{attribute}=\""))? + attribute.len() + 2..];
    Some(rest.split('"').next()?.to_owned())
}

fn csrf(html: &str) -> String {
    attribute_after(html, "name=\"csrf\"", "value").expect("the page has a CSRF field")
}

/// The API's listing for a raw query: `(status, dlqIds, cursor)`.
async fn api_list(base: &str, query: &str) -> (StatusCode, Vec<String>, Option<String>) {
    let response = send(
        client()
            .get(format!("{base}/v2/workflows/dlq?{query}"))
            .bearer_auth(DEMO_SERVICE_TOKEN),
    )
    .await;
    let status = response.status();
    let body: serde_json::Value = response.json().await.expect("json");
    let ids = body["messages"]
        .as_array()
        .map(|messages| {
            messages
                .iter()
                .map(|m| m["dlqId"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default();
    (status, ids, body["cursor"].as_str().map(str::to_owned))
}

async fn api_get_status(base: &str, dlq_id: &str) -> StatusCode {
    send(
        client()
            .get(format!("{base}/v2/workflows/dlq/{dlq_id}"))
            .bearer_auth(DEMO_SERVICE_TOKEN),
    )
    .await
    .status()
}

#[tokio::test]
async fn without_credentials_there_is_only_the_login_page() {
    let (courier, _data) = start(&[]);
    let base = &courier.management;
    let http = client();

    let response = send(http.get(format!("{base}/console/dlq?label=billing"))).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        location(response.headers()),
        "/console/login?next=%2Fconsole%2Fdlq%3Flabel%3Dbilling"
    );
    for path in ["/console/stats", "/console/topics", "/console/dlq/x"] {
        let response = http.get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{path}");
        let body = response.text().await.unwrap();
        assert!(!body.contains("data-dlq-id"), "{path} leaked data");
    }
    let response = send(http.post(format!("{base}/console/bulk-delete"))).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert!(
        response.headers().get("www-authenticate").is_none(),
        "no Basic dialog for a browser without credentials"
    );

    let wrong = send(
        http.get(format!("{base}/console/dlq"))
            .basic_auth(DEMO_CUSTOMER_ID, Some("not-the-key")),
    )
    .await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert!(
        wrong.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic")
    );

    let login = send(http.get(format!("{base}/console/login"))).await;
    assert_eq!(login.status(), StatusCode::OK);
    let login = login.text().await.unwrap();
    assert!(login.contains("name=\"username\"") && login.contains("type=\"password\""));
    assert!(
        login.contains("<label for=\"username\">") && login.contains("<label for=\"password\">")
    );

    let refused = send(
        http.post(format!("{base}/console/login"))
            .form(&[("username", DEMO_CUSTOMER_ID), ("password", "wrong")]),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert!(refused.headers().get(SET_COOKIE).is_none());

    let css = send(http.get(format!("{base}/console/assets/console.css"))).await;
    assert_eq!(css.status(), StatusCode::OK);
    assert!(
        css.text()
            .await
            .unwrap()
            .contains("prefers-color-scheme: dark")
    );
}

#[tokio::test]
async fn login_sets_a_strict_http_only_session_that_logout_ends() {
    let (courier, _data) = start(&[]);
    let base = &courier.management;
    let (cookie, set_cookie) = sign_in(base).await;
    let flags: Vec<String> = set_cookie
        .split(';')
        .map(|part| part.trim().to_ascii_lowercase())
        .collect();
    for flag in ["httponly", "samesite=strict", "path=/console"] {
        assert!(
            flags.iter().any(|f| f == flag),
            "{flag} missing from {set_cookie}"
        );
    }
    assert!(
        flags.iter().any(|f| f.starts_with("max-age=")),
        "the cookie expires: {set_cookie}"
    );
    assert!(cookie.len() > 40, "a long random session id: {cookie}");

    let (status, html) = page(base, "/console/dlq", &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(row_ids(&html).len(), 100, "the API's default page size");
    let token = csrf(&html);

    let logout = send(
        client()
            .post(format!("{base}/console/logout"))
            .header("cookie", &cookie)
            .form(&[("csrf", token.as_str())]),
    )
    .await;
    assert_eq!(logout.status(), StatusCode::SEE_OTHER);
    let cleared = logout.headers()[SET_COOKIE].to_str().unwrap().to_owned();
    assert!(
        cleared.contains("Max-Age=0") || cleared.contains("Expires"),
        "{cleared}"
    );
    let (status, _) = page(base, "/console/dlq", &cookie).await;
    assert_eq!(
        status,
        StatusCode::SEE_OTHER,
        "the old session id no longer works"
    );
}

#[tokio::test]
async fn actions_refuse_cross_site_requests_and_missing_tokens() {
    let (courier, _data, cookie) = signed_in().await;
    let base = &courier.management;
    let (_, html) = page(base, "/console/dlq?count=10", &cookie).await;
    let token = csrf(&html);
    let target = row_ids(&html)[0].clone();
    let delete = format!("{base}/console/dlq/{target}/delete");
    let host = base.trim_start_matches("http://");

    let with_session = || client().post(&delete).header("cookie", &cookie);
    let token = [("csrf", token.as_str())];
    let forbidden = [
        ("no token", with_session().form(&[("other", "x")])),
        ("a wrong token", with_session().form(&[("csrf", "forged")])),
        (
            "another origin",
            with_session()
                .header("origin", "http://evil.example")
                .form(&token),
        ),
        (
            "a cross-site fetch",
            with_session()
                .header("sec-fetch-site", "cross-site")
                .form(&token),
        ),
        // Basic credentials a browser cached are no way around the origin check either.
        (
            "Basic credentials from another origin",
            client()
                .post(&delete)
                .basic_auth(DEMO_CUSTOMER_ID, Some(DEMO_MANAGEMENT_KEY))
                .header("origin", "http://evil.example"),
        ),
    ];
    for (what, request) in forbidden {
        assert_eq!(
            send(request).await.status(),
            StatusCode::FORBIDDEN,
            "{what}"
        );
    }
    assert_eq!(
        api_get_status(base, &target).await,
        StatusCode::OK,
        "nothing was deleted"
    );

    let accepted = send(
        with_session()
            .header("origin", format!("http://{host}"))
            .header("sec-fetch-site", "same-origin")
            .form(&token),
    )
    .await;
    assert_eq!(accepted.status(), StatusCode::SEE_OTHER);
    assert_eq!(api_get_status(base, &target).await, StatusCode::NOT_FOUND);
    let (_, after) = page(base, "/console/dlq?count=10", &cookie).await;
    assert!(
        after.contains(&format!("Deleted the DLQ entry {target}.")),
        "the notice shows"
    );
    assert!(!row_ids(&after).contains(&target));

    // A script with Basic credentials needs no token (it sends no Origin).
    let second = row_ids(&after)[0].clone();
    let scripted = send(
        client()
            .post(format!("{base}/console/dlq/{second}/delete"))
            .basic_auth(DEMO_CUSTOMER_ID, Some(DEMO_MANAGEMENT_KEY)),
    )
    .await;
    assert_eq!(scripted.status(), StatusCode::SEE_OTHER);
    assert_eq!(api_get_status(base, &second).await, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn filters_and_pages_show_exactly_what_the_api_lists() {
    let (courier, _data, cookie) = signed_in().await;
    let base = &courier.management;
    let queries = [
        "label=billing",
        "label=billing,etl&count=25",
        "failureFunctionState=CALLBACK_FAIL&failureFunctionState=CALLBACK_SUCCESS&count=50",
        "callerIp=203.0.113.7&flowControlKey=tenant-acme",
        "workflowUrl=https%3A%2F%2Fshop.example.com%2Fapi%2Fworkflows%2Fcheckout&count=10",
        "workflowRunId=wfr_demo01010",
    ];
    for query in queries {
        let (status, api_ids, api_cursor) = api_list(base, query).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert!(!api_ids.is_empty(), "the demo data matches {query}");
        let (status, html) = page(base, &format!("/console/dlq?{query}"), &cookie).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert_eq!(row_ids(&html), api_ids, "{query}");
        // The next page follows the API's cursor.
        if let Some(cursor) = api_cursor {
            let next = attribute_after(&html, "id=\"next-page\"", "href")
                .expect("a next-page link")
                .replace("&amp;", "&");
            assert!(next.ends_with(&format!("cursor={cursor}")), "{next}");
            let (_, api_next, _) = api_list(base, &format!("{query}&cursor={cursor}")).await;
            let (_, next_html) = page(base, &next, &cookie).await;
            assert_eq!(row_ids(&next_html), api_next, "second page of {query}");
        } else {
            assert!(!html.contains("id=\"next-page\""), "{query}");
            let count = attribute_after(&html, "id=\"match-count\"", "data-count").unwrap();
            assert_eq!(count, api_ids.len().to_string(), "the count of {query}");
        }
    }
    // Empty form fields mean "no filter" (a form sends every field).
    let (status, html) = page(base, "/console/dlq?label=&callerIp=&count=10", &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(row_ids(&html), api_list(base, "count=10").await.1);
    // What the API refuses, the console refuses, with the API's reason.
    let (status, html) = page(base, "/console/dlq?failureFunctionState=NOPE", &cookie).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        html.contains("failureFunctionState"),
        "the message names the filter"
    );
    assert_eq!(
        api_list(base, "failureFunctionState=NOPE").await.0,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        page(base, "/console/dlq?cursor=not-a-cursor", &cookie)
            .await
            .0,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn bulk_delete_states_the_count_and_deletes_what_the_api_matches() {
    let (courier, _data, cookie) = signed_in().await;
    let base = &courier.management;
    let filter = "label=beta&callerIp=192.0.2.44";
    let (_, matching, cursor) = api_list(base, filter).await;
    assert!(cursor.is_none() && !matching.is_empty());
    let (_, all_before, _) = api_list(base, "count=100").await;

    let (status, html) = page(base, &format!("/console/bulk-delete?{filter}"), &cookie).await;
    assert_eq!(status, StatusCode::OK);
    let stated = attribute_after(&html, "id=\"bulk-count\"", "data-count").unwrap();
    assert_eq!(stated, matching.len().to_string());
    assert!(html.contains(&format!("Delete {} entr", matching.len())));

    let action = format!("/console/bulk-delete?{filter}");
    let redirected = submit(base, &action, &cookie, &html).await;
    assert_eq!(redirected, format!("/console/dlq?{filter}"));
    assert!(
        api_list(base, filter).await.1.is_empty(),
        "every match is gone"
    );
    let (_, all_after, _) = api_list(base, "count=100").await;
    let survivors: Vec<_> = all_before
        .iter()
        .filter(|id| !matching.contains(id))
        .collect();
    assert!(
        survivors.iter().all(|id| all_after.contains(id)),
        "nothing else went"
    );
    let (_, html) = page(base, &redirected, &cookie).await;
    assert!(html.contains(&format!("Deleted {} entr", matching.len())));
}

#[tokio::test]
async fn the_run_page_shows_the_whole_run_and_cancel_removes_its_entries() {
    let (courier, _data, cookie) = signed_in().await;
    let base = &courier.management;
    // Entry 0 of the demo has a binary body and no failure function; entry 1 has JSON.
    let (_, ids, _) = api_list(base, "count=2").await;
    let (status, binary) = page(base, &format!("/console/dlq/{}", ids[0]), &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert!(binary.contains("binary, 5 bytes") && binary.contains("ff fe 00 00 80"));
    assert!(binary.contains("This run has no failure function."));
    let (_, json) = page(base, &format!("/console/dlq/{}", ids[1]), &cookie).await;
    assert!(json.contains("Request body") && json.contains("(JSON, "));
    assert!(json.contains("&quot;step&quot;:"), "pretty-printed JSON");
    assert!(json.contains("upstream answered"), "the response body");
    assert!(json.contains("Failure function response headers") || json.contains("state-CALLBACK"));

    let run_id = json
        .split("action=\"/console/runs/")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .expect("a cancel form")
        .to_owned();
    let (_, of_run, _) = api_list(base, &format!("workflowRunId={run_id}")).await;
    assert!(!of_run.is_empty());
    let action = format!("/console/runs/{run_id}/cancel");
    submit(base, &action, &cookie, &json).await;
    assert!(
        api_list(base, &format!("workflowRunId={run_id}"))
            .await
            .1
            .is_empty()
    );

    assert_eq!(
        page(base, "/console/dlq/no-such-entry", &cookie).await.0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn every_page_renders_the_demo_data() {
    let (courier, _data, cookie) = signed_in().await;
    let base = &courier.management;
    let (status, topics) = page(base, "/console/topics", &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        topics.contains("data-topic=\"orders\"") && topics.contains("data-topic=\"notifications\"")
    );
    assert!(topics.contains("https://warehouse.example.com/orders"));
    let (_, indexes) = page(base, "/console/search", &cookie).await;
    let index_path = format!("/console/search/{}", courier_service::demo::DEMO_INDEX_ID);
    assert!(indexes.contains(&index_path) && indexes.contains("products"));
    let (status, index) = page(base, &format!("{index_path}?period=7d"), &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        index.contains("data-series=\"query_latency_mean\""),
        "index charts"
    );
    assert!(
        !index.contains("demo-index-token"),
        "index tokens are secrets"
    );
    let (status, stats) = page(base, "/console/stats?period=3d", &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        stats.contains("data-figure=\"dlq_message_count\">300<"),
        "the demo's 300 runs"
    );
    assert!(stats.contains("data-series=\"daily_requests\""));
    assert!(stats.contains("data-series=\"daily_workflow_messages.run_failed\""));
    assert!(stats.contains("<a href=\"/console/stats?period=3d\" aria-current=\"page\">"));
    let (status, _) = page(base, "/console/stats?period=2w", &cookie).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "only the API's periods");
}

#[tokio::test]
async fn no_console_turns_it_off() {
    let (courier, _data) = start(&["--no-console"]);
    let response = send(client().get(format!("{}/console/login", courier.management))).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_console_lives_on_the_management_listener() {
    let data = tempfile::tempdir().expect("tempdir");
    let courier = Courier::spawn(
        common::courier_serve(data.path())
            .args(["--demo", "--management-listen", "127.0.0.1:0"])
            .env("RUST_LOG", "warn"),
    );
    assert_ne!(courier.base, courier.management);
    let on = |base: &str| {
        let url = format!("{base}/console/login");
        async move { client().get(url).send().await.unwrap().status() }
    };
    assert_eq!(on(&courier.management).await, StatusCode::OK);
    assert_eq!(on(&courier.base).await, StatusCode::NOT_FOUND);
}
