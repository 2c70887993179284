//! The console in a real browser: Debian's headless `chromium`, driven over WebDriver
//! (`chromedriver` + fantoccini), against the real `courier serve --demo` binary. It signs in,
//! filters, pages, opens a run, deletes it (and checks the API no longer has it), reads a chart
//! by hovering it, and saves a screenshot of every page in light and dark mode under
//! `target/console-screenshots/`. With `COURIER_UPDATE_DOCS_SCREENSHOTS=1` it also refreshes
//! the README's pictures in `docs/`.
//!
//! Without `chromium` and `chromedriver` it prints why and passes, unless
//! `COURIER_REQUIRE_BROWSER=1` (as `.ci/run` sets it) makes that a failure.

use crate::common;

use common::Courier;
use courier_service::demo::{DEMO_CUSTOMER_ID, DEMO_MANAGEMENT_KEY, DEMO_SERVICE_TOKEN};
use fantoccini::actions::{InputSource, MouseActions, PointerAction};
use fantoccini::{Client, ClientBuilder, Locator};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where a program is on `PATH`, if anywhere.
fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// `chromedriver` on a free local port, stopped when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    fn start(chromedriver: &Path) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not listen within 20 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A headless chromium session with a fresh profile; `dark` makes the page see
/// `prefers-color-scheme: dark`.
async fn browser(driver: &Driver, chromium: &Path, profile: &Path, dark: bool) -> Client {
    let mut args = vec![
        "--headless".to_owned(),
        "--no-sandbox".to_owned(),
        "--disable-gpu".to_owned(),
        "--disable-quic".to_owned(),
        "--no-first-run".to_owned(),
        "--disable-background-networking".to_owned(),
        "--disable-component-update".to_owned(),
        "--disable-sync".to_owned(),
        "--disable-dev-shm-usage".to_owned(),
        "--window-size=1400,1000".to_owned(),
        format!("--user-data-dir={}", profile.display()),
    ];
    if dark {
        args.push("--force-dark-mode".to_owned());
    }
    let capabilities = serde_json::json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": chromium, "args": args },
    });
    let serde_json::Value::Object(capabilities) = capabilities else {
        unreachable!("a JSON object literal")
    };
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&driver.url)
        .await
        .expect("a WebDriver session with chromium")
}

fn screenshots_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("console-screenshots")
}

/// Saves the viewport as `<name>-<light|dark>.png`; returns the path.
async fn screenshot(client: &Client, name: &str, dark: bool) -> PathBuf {
    let png = client.screenshot().await.expect("screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let dir = screenshots_dir();
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    let path = dir.join(format!(
        "{name}-{}.png",
        if dark { "dark" } else { "light" }
    ));
    std::fs::write(&path, png).expect("write screenshot");
    path
}

async fn sign_in(client: &Client, base: &str, next: &str) {
    client
        .goto(&format!("{base}{next}"))
        .await
        .expect("open the console");
    let url = client.current_url().await.expect("url");
    assert_eq!(url.path(), "/console/login", "no session: the login page");
    type_into(client, "username", DEMO_CUSTOMER_ID).await;
    type_into(client, "password", DEMO_MANAGEMENT_KEY).await;
    click(
        client,
        Locator::Css("form.login button[type=submit]"),
        "sign in",
    )
    .await;
    client
        .wait()
        .for_element(Locator::Css("nav[aria-label='Console sections']"))
        .await
        .expect("a console page after login");
}

/// Types `text` into the field with the id `field`.
async fn type_into(client: &Client, field: &str, text: &str) {
    client
        .find(Locator::Id(field))
        .await
        .unwrap_or_else(|e| panic!("the field {field}: {e}"))
        .send_keys(text)
        .await
        .unwrap_or_else(|e| panic!("typing into {field}: {e}"));
}

/// Clicks the element at `locator` (`what` names it in a failure).
async fn click(client: &Client, locator: Locator<'_>, what: &str) {
    client
        .find(locator)
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// The value a chart's bar stands for (its `data-value`; 0 when it has none).
async fn bar_value(bar: &fantoccini::elements::Element) -> f64 {
    bar.attr("data-value")
        .await
        .expect("attr")
        .unwrap_or_default()
        .parse()
        .unwrap_or(0.0)
}

/// Waits (up to 20 s) until the browser's URL satisfies `done`; returns it.
async fn wait_for_url(client: &Client, done: impl Fn(&url::Url) -> bool) -> url::Url {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let url = client.current_url().await.expect("url");
        if done(&url) {
            return url;
        }
        assert!(Instant::now() < deadline, "the browser stayed at {url}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The `data-dlq-id`s of the rows on the page, in order.
async fn row_ids(client: &Client) -> Vec<String> {
    let mut ids = Vec::new();
    for row in client
        .find_all(Locator::Css("tr[data-dlq-id]"))
        .await
        .expect("rows")
    {
        ids.push(
            row.attr("data-dlq-id")
                .await
                .expect("attr")
                .unwrap_or_default(),
        );
    }
    ids
}

/// The JSON answer of an interface request, what the pages are checked against.
async fn api_json(request: reqwest::RequestBuilder) -> serde_json::Value {
    let response = request.send().await.expect("api");
    response.json().await.expect("json")
}

/// The API's ids for a query, and its cursor.
async fn api_list(base: &str, query: &str) -> (Vec<String>, Option<String>) {
    let request = reqwest::Client::new().get(format!("{base}/v2/workflows/dlq?{query}"));
    let body = api_json(request.bearer_auth(DEMO_SERVICE_TOKEN)).await;
    let ids = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["dlqId"].as_str().unwrap_or("").to_owned())
        .collect();
    (ids, body["cursor"].as_str().map(str::to_owned))
}

async fn background(client: &Client) -> String {
    client
        .execute(
            "return getComputedStyle(document.body).backgroundColor",
            vec![],
        )
        .await
        .expect("script")
        .as_str()
        .unwrap_or("")
        .to_owned()
}

/// Visits every page and saves its screenshot; returns the paths by page name.
async fn tour(client: &Client, base: &str, dark: bool, run: &str) -> Vec<(String, PathBuf)> {
    let pages = [
        ("dlq", "/console/dlq?count=25".to_owned()),
        ("run", format!("/console/dlq/{run}")),
        (
            "bulk-delete",
            "/console/bulk-delete?label=billing".to_owned(),
        ),
        ("topics", "/console/topics".to_owned()),
        ("search", "/console/search".to_owned()),
        (
            "search-index",
            format!(
                "/console/search/{}?period=7d",
                courier_service::demo::DEMO_INDEX_ID
            ),
        ),
        ("stats", "/console/stats?period=3d".to_owned()),
    ];
    let mut shots = Vec::new();
    for (name, path) in pages {
        client.goto(&format!("{base}{path}")).await.expect("page");
        let heading = client
            .find(Locator::Css("main h1"))
            .await
            .expect("every page has a heading")
            .text()
            .await
            .expect("text");
        assert!(!heading.is_empty(), "{name}");
        shots.push((name.to_owned(), screenshot(client, name, dark).await));
    }
    shots
}

#[tokio::test]
async fn the_console_in_a_real_browser() {
    let required = std::env::var("COURIER_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    let (Some(chromium), Some(chromedriver)) = (on_path("chromium"), on_path("chromedriver"))
    else {
        let reason = "chromium and chromedriver are not both on PATH \
                      (apt-get install chromium chromium-driver)";
        assert!(!required, "COURIER_REQUIRE_BROWSER=1 but {reason}");
        eprintln!("skipping the browser test: {reason}");
        return;
    };
    let data = tempfile::tempdir().expect("tempdir");
    let courier = Courier::spawn(
        common::courier_serve(data.path())
            .arg("--demo")
            .env("RUST_LOG", "warn"),
    );
    let base = courier.management.clone();
    let driver = Driver::start(&chromedriver);
    let profile = tempfile::tempdir().expect("profile dir");
    let client = browser(&driver, &chromium, profile.path(), false).await;

    // Log in: a shared filter link survives the detour through the login page.
    client
        .goto(&format!("{base}/console/login"))
        .await
        .expect("login page");
    screenshot(&client, "login", false).await;
    sign_in(&client, &base, "/console/dlq?label=billing").await;
    let url = client.current_url().await.expect("url");
    assert_eq!(
        (url.path(), url.query()),
        ("/console/dlq", Some("label=billing"))
    );
    assert_eq!(
        row_ids(&client).await,
        api_list(&base, "label=billing").await.0
    );
    assert_eq!(
        background(&client).await,
        "rgb(247, 247, 249)",
        "light mode"
    );

    // Filter with the form: a failure function state checkbox on top of the label.
    click(
        &client,
        Locator::Id("f-state-CALLBACK_FAIL"),
        "state checkbox",
    )
    .await;
    click(
        &client,
        Locator::Css("form.filters-form button[type=submit]"),
        "apply button",
    )
    .await;
    // The browser sends every field; the console reads empty ones as "no filter".
    let url = wait_for_url(&client, |url| {
        url.query()
            .is_some_and(|q| q.contains("failureFunctionState=CALLBACK_FAIL"))
    })
    .await;
    assert!(url.query().is_some_and(|q| q.contains("label=billing&")));
    let filtered = row_ids(&client).await;
    assert!(!filtered.is_empty());
    assert_eq!(
        filtered,
        api_list(&base, "label=billing&failureFunctionState=CALLBACK_FAIL")
            .await
            .0
    );

    // Page: the second page of everything is the API's second page.
    client
        .goto(&format!("{base}/console/dlq"))
        .await
        .expect("dlq");
    let (first, cursor) = api_list(&base, "").await;
    assert_eq!(row_ids(&client).await, first);
    click(&client, Locator::Id("next-page"), "next page link").await;
    let cursor = cursor.expect("the demo has more than one page");
    client
        .wait()
        .for_url(&url::Url::parse(&format!("{base}/console/dlq?cursor={cursor}")).expect("url"))
        .await
        .expect("the second page");
    assert_eq!(
        row_ids(&client).await,
        api_list(&base, &format!("cursor={cursor}")).await.0
    );

    // Open a run from the list, keyboard style: focus its link and press Enter.
    let target = row_ids(&client).await[3].clone();
    let link = client
        .find(Locator::Css(&format!("tr[data-dlq-id='{target}'] a")))
        .await
        .expect("the row's link");
    link.send_keys("\u{E007}").await.expect("Enter on the link");
    let shown = text_when_shown(&client, Locator::Id("dlq-id"), "the run page").await;
    assert_eq!(shown, target);
    let page = client.source().await.expect("source");
    assert!(page.contains("Request body") && page.contains("Response body"));

    // Delete it, and see it gone from the API.
    click(&client, Locator::Id("delete-entry"), "delete button").await;
    let notice = text_when_shown(&client, Locator::Css("p.notice"), "the notice").await;
    assert_eq!(notice, format!("Deleted the DLQ entry {target}."));
    let status = reqwest::Client::new()
        .get(format!("{base}/v2/workflows/dlq/{target}"))
        .bearer_auth(DEMO_SERVICE_TOKEN)
        .send()
        .await
        .expect("api")
        .status();
    assert_eq!(status, reqwest::StatusCode::NOT_FOUND);

    // Read a chart: hovering a bar shows its value, which is the API's number.
    client
        .goto(&format!("{base}/console/stats?period=3d"))
        .await
        .expect("stats");
    let bars = client
        .find_all(Locator::Css(
            "figure[data-series='daily_workflow_messages.run_failed'] g.point",
        ))
        .await
        .expect("bars");
    let mut busiest = None;
    for bar in &bars {
        let value = bar_value(bar).await;
        if value > 0.0 && busiest.as_ref().is_none_or(|(best, _)| value > *best) {
            busiest = Some((value, bar.clone()));
        }
    }
    let (value, bar) = busiest.expect("the demo's failed runs are charted");
    let label = bar
        .attr("data-label")
        .await
        .expect("attr")
        .unwrap_or_default();
    client
        .perform_actions(
            MouseActions::new("mouse".to_owned()).then(PointerAction::MoveToElement {
                element: bar.clone(),
                duration: None,
                x: 0.0,
                y: 0.0,
            }),
        )
        .await
        .expect("hover");
    let readout = text_when_shown(
        &client,
        Locator::Css("figure[data-series='daily_workflow_messages.run_failed'] .readout"),
        "readout",
    )
    .await;
    assert_eq!(readout, format!("{label}: {value}"));
    let request = reqwest::Client::new().get(format!("{base}/v2/svc/stats?period=3d"));
    let stats = api_json(request.basic_auth(DEMO_CUSTOMER_ID, Some(DEMO_MANAGEMENT_KEY))).await;
    let charted_total: f64 = {
        let mut total = 0.0;
        for bar in &bars {
            total += bar_value(bar).await;
        }
        total
    };
    let api_total: f64 = stats["daily_workflow_messages"]
        .as_array()
        .expect("named series")
        .iter()
        .find(|series| series["id"] == "run_failed")
        .expect("run_failed")["data_points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|point| point["y"].as_f64().unwrap_or(0.0))
        .sum();
    assert_eq!(
        charted_total, api_total,
        "the chart shows the API's numbers"
    );

    // Every page, light and then dark.
    let run = api_list(&base, "count=2").await.0[1].clone();
    let light = tour(&client, &base, false, &run).await;
    client.close().await.expect("close");

    let dark_profile = tempfile::tempdir().expect("profile dir");
    let dark = browser(&driver, &chromium, dark_profile.path(), true).await;
    dark.goto(&format!("{base}/console/login"))
        .await
        .expect("login page");
    screenshot(&dark, "login", true).await;
    sign_in(&dark, &base, "/console/dlq").await;
    assert_eq!(background(&dark).await, "rgb(20, 22, 27)", "dark mode");
    tour(&dark, &base, true, &run).await;
    dark.close().await.expect("close");

    if std::env::var("COURIER_UPDATE_DOCS_SCREENSHOTS").is_ok_and(|v| v == "1") {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
        std::fs::create_dir_all(&docs).expect("docs dir");
        for (name, path) in &light {
            if name == "dlq" || name == "stats" {
                std::fs::copy(path, docs.join(format!("console-{name}.png"))).expect("copy");
            }
        }
    }
    eprintln!("screenshots in {}", screenshots_dir().display());
}

/// The text of the element at `locator`, once the page shows it (`what` names it in a failure).
async fn text_when_shown(client: &fantoccini::Client, locator: Locator<'_>, what: &str) -> String {
    client
        .wait()
        .for_element(locator)
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}"))
        .text()
        .await
        .expect("text")
}
