//! The console over real HTTP against the real `courier serve --demo` binary, without a
//! browser: who gets in (login, cookie flags, Basic, redirects), the cross-site guard, and that
//! its pages show what the API answers and its actions change what the API sees.

use crate::common;

mod access;
mod pages;

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
