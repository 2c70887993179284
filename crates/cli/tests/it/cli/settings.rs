//! Stats, token rotation, settings and exit codes, rate limits, Ctrl-C and help.

use super::*;

#[tokio::test]
async fn stats_in_every_format_with_sparklines_in_the_table() {
    let (_data, service) = start();
    let account = run(
        &service,
        &["stats", "account", "--period", "1h", "-o", "json"],
    )
    .ok()
    .json();
    let parsed: courier_models::AccountStats =
        serde_json::from_value(account.clone()).expect("the API's shape");
    assert_eq!(parsed.daily_used.len(), 60);
    assert_eq!(parsed.dlq_message_count, DEMO_ENTRIES as i64);
    let ndjson = run(&service, &["stats", "account", "-o", "ndjson"])
        .ok()
        .ndjson();
    assert_eq!(ndjson.len(), 1);
    let table = run(&service, &["stats", "account", "-p", "7d", "-o", "table"])
        .ok()
        .stdout;
    assert!(table.contains("dlq_message_count"), "{table}");
    assert!(
        table.contains("daily_workflow_messages.run_failed"),
        "{table}"
    );
    assert!(table.contains("daily_used"), "{table}");
    assert!(table.chars().any(|c| ('▁'..='█').contains(&c)), "{table}");

    let index = run(
        &service,
        &[
            "stats",
            "index",
            DEMO_INDEX_ID,
            "--period",
            "30d",
            "-o",
            "json",
        ],
    )
    .ok()
    .json();
    assert_eq!(
        index["query_throughput"].as_array().map(Vec::len),
        Some(240)
    );
    let table = run(&service, &["stats", "index", DEMO_INDEX_ID, "-o", "table"])
        .ok()
        .stdout;
    assert!(table.contains("query_latency_99"), "{table}");

    run(&service, &["stats", "account", "--period", "2h"])
        .exits(2)
        .says("30d");
}

#[tokio::test]
async fn token_rotate_asks_first_and_a_wrong_token_exits_3_with_the_api_message() {
    let (_data, service) = start();
    let unconfirmed = run(&service, &["token", "rotate"]);
    assert_eq!(unconfirmed.code, 2, "{}", unconfirmed.stderr);
    run(&service, &["dlq", "list", "--limit", "1"]).ok();

    let account = run(&service, &["token", "rotate", "--yes", "-o", "json"])
        .ok()
        .json();
    let new_token = account["token"].as_str().expect("the new token");
    assert_ne!(new_token, DEMO_SERVICE_TOKEN);

    let (status, error) = api(&service, "/v2/workflows/dlq").await;
    assert_eq!(status, 401);
    run(&service, &["dlq", "list"])
        .exits(3)
        .says(error["error"].as_str().unwrap());
    let listed =
        ran(courier(&service, &["dlq", "list", "--limit", "1"])
            .env("COURIER_SERVICE_TOKEN", new_token))
        .ok();
    assert_eq!(listed.ndjson().len(), 1);

    let wrong_key =
        ran(courier(&service, &["stats", "account"]).env("COURIER_MANAGEMENT_KEY", "wrong"));
    assert_eq!(wrong_key.code, 3, "{}", wrong_key.stderr);
    assert!(
        wrong_key.stderr.starts_with("error: 401"),
        "{}",
        wrong_key.stderr
    );
}

#[tokio::test]
async fn flags_override_the_environment_and_missing_settings_have_their_own_codes() {
    let (_data, service) = start();
    let dead = "http://127.0.0.1:1";
    // Flags win over the variables of the same setting.
    ran(courier(
        &service,
        &[
            "dlq",
            "list",
            "--limit",
            "1",
            "--service-token",
            DEMO_SERVICE_TOKEN,
        ],
    )
    .env("COURIER_SERVICE_TOKEN", "wrong"))
    .ok();
    ran(courier(
        &service,
        &["dlq", "list", "--limit", "1", "--base-url", &service.base],
    )
    .env("COURIER_BASE_URL", dead))
    .ok();
    ran(courier(
        &service,
        &["stats", "account", "--management-key", DEMO_MANAGEMENT_KEY],
    )
    .env("COURIER_MANAGEMENT_KEY", "wrong"))
    .ok();
    // Management falls back to the messaging address; COURIER_MANAGEMENT_URL wins over it.
    ran(courier(&service, &["stats", "account"])
        .env("COURIER_BASE_URL", dead)
        .env("COURIER_MANAGEMENT_URL", &service.base))
    .ok();

    ran(courier(&service, &["dlq", "list"]).env_remove("COURIER_SERVICE_TOKEN"))
        .exits(3)
        .says("COURIER_SERVICE_TOKEN");
    let no_key =
        ran(courier(&service, &["index", "get", DEMO_INDEX_ID])
            .env_remove("COURIER_MANAGEMENT_KEY"));
    assert_eq!(no_key.code, 3, "{}", no_key.stderr);
    ran(courier(&service, &["dlq", "list"]).env_remove("COURIER_BASE_URL"))
        .exits(2)
        .says("COURIER_BASE_URL");
    let unreachable =
        ran(courier(&service, &["dlq", "list", "--retries", "0"]).env("COURIER_BASE_URL", dead));
    assert_eq!(unreachable.code, 6, "{}", unreachable.stderr);
    let usage = run(&service, &["dlq", "list", "--page-size", "500"]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
}

#[test]
fn serve_keeps_reading_its_own_variables() {
    // The same COURIER_SERVICE_TOKEN, COURIER_CUSTOMER_ID and COURIER_MANAGEMENT_KEY configure
    // the account of `courier serve` and the client commands talking to it.
    let data = tempfile::tempdir().expect("tempdir");
    let service = Courier::spawn(
        common::courier_serve(data.path())
            .env("COURIER_SERVICE_TOKEN", "own-service-token-0001")
            .env("COURIER_CUSTOMER_ID", "own@courier.dev")
            .env("COURIER_MANAGEMENT_KEY", "own-management-key-01")
            .env("RUST_LOG", "warn"),
    );
    let listed = ran(courier(&service, &["dlq", "list", "-o", "json"])
        .env("COURIER_SERVICE_TOKEN", "own-service-token-0001"))
    .ok();
    assert_eq!(listed.json(), json!({"messages": []}));
    ran(courier(&service, &["stats", "account"])
        .env("COURIER_CUSTOMER_ID", "own@courier.dev")
        .env("COURIER_MANAGEMENT_KEY", "own-management-key-01"))
    .ok();
    let demo_token = run(&service, &["dlq", "list"]);
    assert_eq!(demo_token.code, 3, "{}", demo_token.stderr);
}

#[tokio::test]
async fn rate_limits_are_waited_out_and_exit_5_when_retries_run_out() {
    let (_data, service) = start();
    let limited = reqwest::Client::new()
        .patch(format!("{}/admin/v1/account", service.base))
        .bearer_auth(ADMIN_TOKEN)
        .json(&json!({"max_requests_per_second": 1}))
        .send()
        .await
        .expect("admin");
    assert_eq!(limited.status(), 200);
    // 300 requests at one a second: without retries one of them is refused.
    run(
        &service,
        &["dlq", "list", "--all", "--page-size", "1", "--retries", "0"],
    )
    .exits(5)
    .says("max_requests_per_second");
    // The client's policy honours Retry-After, so a few pages at one a second all arrive.
    let waited = run(
        &service,
        &["dlq", "list", "--limit", "3", "--page-size", "1"],
    )
    .ok();
    assert_eq!(waited.ndjson().len(), 3);
}

#[tokio::test]
async fn ctrl_c_stops_between_pages_and_prints_the_cursor_to_resume_with() {
    let (_data, service) = start();
    let everything = ids(&all_entries(&service).await);
    let mut child = courier(
        &service,
        &["dlq", "list", "--all", "--page-size", "50", "-o", "ndjson"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("spawn");
    // The whole listing is several times what a pipe holds and nothing reads it until SIGINT
    // was sent, so the command is blocked writing an early page then: it cannot have finished.
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("first line");
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("rest of stdout");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("stderr");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(130), "{stderr}");
    let printed: Vec<Value> = std::iter::once(first.as_str())
        .chain(rest.lines())
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("json line"))
        .collect();
    assert!(
        printed.len().is_multiple_of(50) && printed.len() < DEMO_ENTRIES,
        "whole pages only, and not all: {}",
        printed.len()
    );
    let cursor = stderr
        .split("--cursor ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("the cursor to resume with: {stderr}"));
    let resumed = run(
        &service,
        &["dlq", "list", "--all", "--cursor", cursor, "-o", "ndjson"],
    )
    .ok();
    let mut seen = ids(&printed);
    seen.extend(ids(&resumed.ndjson()));
    assert_eq!(seen, everything, "nothing lost, nothing twice");
}

#[test]
fn help_documents_examples_and_exit_codes_and_completions_cover_every_command() {
    // What `courier <args>` prints, on success.
    let printed = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_courier"))
            .args(args)
            .output()
            .expect("courier runs");
        assert!(output.status.success(), "courier {args:?}");
        String::from_utf8(output.stdout).expect("utf-8")
    };
    let help = [
        "Exit codes",
        "courier dlq purge --label beta --yes",
        "130",
        "rate limited",
    ];
    let list_help = [
        "--from-date",
        "--to-date",
        "--workflow-url",
        "--workflow-run-id",
        "--workflow-created-at",
        "--label",
        "--failure-function-state",
        "--caller-ip",
        "--flow-control-key",
        "--limit",
        "--all",
        "--cursor",
        "COURIER_SERVICE_TOKEN",
        "Examples:",
    ];
    let completion = ["purge", "cancel", "rotate", "failure-function-state"];
    let cases: [(&[&str], &[&str]); 5] = [
        (&["--help"], &help),
        (&["dlq", "list", "--help"], &list_help),
        (&["completions", "bash"], &completion),
        (&["completions", "zsh"], &completion),
        (&["completions", "fish"], &completion),
    ];
    for (args, expected) in cases {
        let text = printed(args);
        for word in expected {
            assert!(
                text.contains(word),
                "`courier {args:?}` lacks {word}: {text}"
            );
        }
    }
}
