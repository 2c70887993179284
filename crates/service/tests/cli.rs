//! The `courier` client commands as a user runs them: the real binary as a process, configured
//! only through `COURIER_*` variables (and flags), against `courier serve --demo` on a real
//! socket; every command, every output format, and the exit codes scripts rely on.

mod common;

use common::Courier;
use courier_service::demo::{
    DEMO_CUSTOMER_ID, DEMO_ENTRIES, DEMO_INDEX_ID, DEMO_MANAGEMENT_KEY, DEMO_SERVICE_TOKEN,
};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

const ADMIN_TOKEN: &str = "admin-secret";

/// `courier serve --demo` on an ephemeral port, with the admin API on.
fn start() -> (tempfile::TempDir, Courier) {
    let data = tempfile::tempdir().expect("tempdir");
    let courier = Courier::spawn(
        common::courier_serve(data.path())
            .args(["--demo", "--admin-token", ADMIN_TOKEN])
            .env("RUST_LOG", "warn")
            .stderr(Stdio::inherit()),
    );
    (data, courier)
}

/// `courier ARGS` with exactly the variables a user would export for the demo, none of the
/// test runner's `COURIER_*`, and stdin closed (as in a script).
fn courier(service: &Courier, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_courier"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") || name == "NO_COLOR" {
            command.env_remove(name);
        }
    }
    command
        .args(args)
        .env("COURIER_BASE_URL", &service.base)
        .env("COURIER_SERVICE_TOKEN", DEMO_SERVICE_TOKEN)
        .env("COURIER_CUSTOMER_ID", DEMO_CUSTOMER_ID)
        .env("COURIER_MANAGEMENT_KEY", DEMO_MANAGEMENT_KEY)
        .stdin(Stdio::null());
    command
}

/// What a finished command left: exit code, stdout, stderr.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {}", self.stdout))
    }

    fn ndjson(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| serde_json::from_str(line).expect("each line is a JSON document"))
            .collect()
    }

    /// Asserts success and returns self, showing stderr otherwise.
    fn ok(self) -> Ran {
        assert_eq!(self.code, 0, "stderr: {}", self.stderr);
        self
    }
}

fn ran(command: &mut Command) -> Ran {
    let output = command.output().expect("courier runs");
    Ran {
        code: output.status.code().expect("exited, not killed"),
        stdout: String::from_utf8(output.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(output.stderr).expect("utf-8 stderr"),
    }
}

fn run(service: &Courier, args: &[&str]) -> Ran {
    ran(&mut courier(service, args))
}

/// The API itself, for comparison: a GET with the demo bearer token or Basic credentials.
async fn api(service: &Courier, path_and_query: &str) -> (u16, Value) {
    let client = reqwest::Client::new();
    let url = format!("{}{path_and_query}", service.base);
    let request =
        if path_and_query.starts_with("/v2/search") || path_and_query.starts_with("/v2/svc") {
            client
                .get(url)
                .basic_auth(DEMO_CUSTOMER_ID, Some(DEMO_MANAGEMENT_KEY))
        } else {
            client.get(url).bearer_auth(DEMO_SERVICE_TOKEN)
        };
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Every entry of the DLQ, straight from the API, following the cursor.
async fn all_entries(service: &Courier) -> Vec<Value> {
    let mut entries = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let query = match &cursor {
            Some(cursor) => format!("/v2/workflows/dlq?count=100&cursor={cursor}"),
            None => "/v2/workflows/dlq?count=100".to_owned(),
        };
        let (status, page) = api(service, &query).await;
        assert_eq!(status, 200, "{page}");
        entries.extend(page["messages"].as_array().expect("messages").clone());
        match page["cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return entries,
        }
    }
}

fn ids(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .map(|entry| entry["dlqId"].as_str().expect("dlqId").to_owned())
        .collect()
}

fn has_label(entry: &Value, label: &str) -> bool {
    entry["labels"]
        .as_array()
        .is_some_and(|labels| labels.iter().any(|l| l == label))
        || entry["label"] == label
}

#[tokio::test]
async fn list_json_is_the_api_page_and_every_filter_flag_filters_like_the_api() {
    let (_data, service) = start();
    // The default: one page of 100, with the cursor, exactly as the API gives it.
    let listed = run(&service, &["dlq", "list", "--output", "json"])
        .ok()
        .json();
    let (status, page) = api(&service, "/v2/workflows/dlq?count=100").await;
    assert_eq!(status, 200);
    assert_eq!(listed, page);
    assert!(listed["cursor"].is_string());

    // Each filter flag against the same query parameter, with a value some entries have.
    let sample = &page["messages"][3];
    let created_at = sample["createdAt"].as_i64().expect("createdAt");
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec!["--label".into(), "billing,etl".into()],
            "label=billing&label=etl".into(),
        ),
        (
            vec![
                "--failure-function-state".into(),
                "CALLBACK_FAIL".into(),
                "--failure-function-state".into(),
                "CALLBACK_SUCCESS".into(),
            ],
            "failureFunctionState=CALLBACK_FAIL,CALLBACK_SUCCESS".into(),
        ),
        (
            vec!["--caller-ip".into(), "192.0.2.44".into()],
            "callerIp=192.0.2.44".into(),
        ),
        (
            vec!["--flow-control-key".into(), "tenant-acme".into()],
            "flowControlKey=tenant-acme".into(),
        ),
        (
            vec![
                "--workflow-url".into(),
                sample["workflowUrl"].as_str().unwrap().into(),
            ],
            format!(
                "workflowUrl={}",
                sample["workflowUrl"]
                    .as_str()
                    .unwrap()
                    .replace(':', "%3A")
                    .replace('/', "%2F")
            ),
        ),
        (
            vec![
                "--workflow-run-id".into(),
                sample["workflowRunId"].as_str().unwrap().into(),
            ],
            format!(
                "workflowRunId={}",
                sample["workflowRunId"].as_str().unwrap()
            ),
        ),
        (
            vec![
                "--workflow-created-at".into(),
                sample["workflowCreatedAt"].to_string(),
            ],
            format!("workflowCreatedAt={}", sample["workflowCreatedAt"]),
        ),
        (
            vec![
                "--from-date".into(),
                created_at.to_string(),
                "--to-date".into(),
                (created_at + 5_000_000).to_string(),
            ],
            format!("fromDate={created_at}&toDate={}", created_at + 5_000_000),
        ),
    ];
    for (flags, query) in cases {
        let mut args = vec!["dlq", "list", "--output", "json"];
        args.extend(flags.iter().map(String::as_str));
        let listed = run(&service, &args).ok().json();
        let (status, expected) =
            api(&service, &format!("/v2/workflows/dlq?count=100&{query}")).await;
        assert_eq!(status, 200, "{query}: {expected}");
        let found = expected["messages"].as_array().unwrap().len();
        assert!(
            (1..DEMO_ENTRIES).contains(&found),
            "{query} should select some but not all entries: {found}"
        );
        assert_eq!(listed, expected, "{flags:?} against ?{query}");
    }
}

#[tokio::test]
async fn list_follows_the_cursor_with_all_limit_and_cursor() {
    let (_data, service) = start();
    let everything = ids(&all_entries(&service).await);
    assert_eq!(everything.len(), DEMO_ENTRIES);

    let streamed = run(
        &service,
        &["dlq", "list", "--all", "--page-size", "7", "-o", "ndjson"],
    )
    .ok();
    assert_eq!(
        ids(&streamed.ndjson()),
        everything,
        "every entry once, in order"
    );

    // --limit spans pages and hands back the API's cursor; --cursor resumes right after.
    let first = run(&service, &["dlq", "list", "--limit", "150", "-o", "json"])
        .ok()
        .json();
    let first_ids = ids(first["messages"].as_array().unwrap());
    assert_eq!(first_ids, everything[..150]);
    let cursor = first["cursor"].as_str().expect("more remain, so a cursor");
    let rest = run(
        &service,
        &["dlq", "list", "--all", "--cursor", cursor, "-o", "json"],
    )
    .ok()
    .json();
    assert_eq!(ids(rest["messages"].as_array().unwrap()), everything[150..]);
    assert!(
        rest.get("cursor").is_none(),
        "the last page has no cursor: {rest}"
    );
}

#[tokio::test]
async fn table_output_on_a_pipe_is_plain_and_ndjson_is_the_default() {
    let (_data, service) = start();
    let expected = ids(&all_entries(&service).await)[..5].to_vec();
    let table = run(
        &service,
        &["dlq", "list", "--limit", "5", "--output", "table"],
    )
    .ok();
    assert!(table.stdout.contains("DLQ ID"), "{}", table.stdout);
    for id in &expected {
        assert!(
            table.stdout.contains(id.as_str()),
            "{id} missing: {}",
            table.stdout
        );
    }
    assert!(table.stdout.contains("5 entries"), "{}", table.stdout);
    assert!(
        !table.stdout.contains('\x1b'),
        "no colour on a pipe: {}",
        table.stdout
    );
    assert!(
        table.stderr.contains("--cursor"),
        "where to go on: {}",
        table.stderr
    );

    let default = run(&service, &["dlq", "list", "--limit", "5"]).ok();
    assert_eq!(ids(&default.ndjson()), expected);
}

/// Runs `courier` in a pseudo-terminal (util-linux `script`), where tables are coloured
/// unless `NO_COLOR` is set.
#[tokio::test]
async fn colour_on_a_terminal_only_without_no_color() {
    let (_data, service) = start();
    let binary = env!("CARGO_BIN_EXE_courier");
    let in_terminal = |no_color: bool| {
        let mut script = Command::new("script");
        script
            .args(["-qec", &format!("{binary} dlq list --limit 2"), "/dev/null"])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("COURIER_BASE_URL", &service.base)
            .env("COURIER_SERVICE_TOKEN", DEMO_SERVICE_TOKEN)
            .stdin(Stdio::null());
        if no_color {
            script.env("NO_COLOR", "1");
        }
        ran(&mut script).ok()
    };
    let coloured = in_terminal(false);
    assert!(coloured.stdout.contains("DLQ ID"), "{}", coloured.stdout);
    assert!(
        coloured.stdout.contains("\x1b["),
        "a terminal gets colour: {}",
        coloured.stdout
    );
    let plain = in_terminal(true);
    assert!(plain.stdout.contains("DLQ ID"), "{}", plain.stdout);
    assert!(
        !plain.stdout.contains("\x1b["),
        "NO_COLOR: {}",
        plain.stdout
    );
}

/// `courier ARGS` in a pseudo-terminal (util-linux `script`) with `answer` typed at it; stdout
/// and stderr arrive together, as on a real terminal.
fn in_terminal(service: &Courier, args: &str, answer: &str) -> Ran {
    let mut script = Command::new("script");
    script
        .args([
            "-qec",
            &format!("{} {args}", env!("CARGO_BIN_EXE_courier")),
            "/dev/null",
        ])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("TERM", "xterm-256color")
        .env("COURIER_BASE_URL", &service.base)
        .env("COURIER_SERVICE_TOKEN", DEMO_SERVICE_TOKEN)
        .env("COURIER_CUSTOMER_ID", DEMO_CUSTOMER_ID)
        .env("COURIER_MANAGEMENT_KEY", DEMO_MANAGEMENT_KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = script.spawn().expect("script runs");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), answer.as_bytes())
        .expect("type the answer");
    let output = child.wait_with_output().expect("script finishes");
    Ran {
        code: output.status.code().expect("exited"),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[tokio::test]
async fn on_a_terminal_purge_and_rotate_ask_first_and_purge_shows_progress() {
    let (_data, service) = start();
    let etl = all_entries(&service)
        .await
        .iter()
        .filter(|entry| has_label(entry, "etl"))
        .count();
    let declined = in_terminal(&service, "dlq purge --label etl", "n\n");
    assert_eq!(declined.code, 1, "{}", declined.stdout);
    assert!(declined.stdout.contains("[y/N]"), "{}", declined.stdout);
    assert!(
        declined.stdout.contains("nothing was changed"),
        "{}",
        declined.stdout
    );
    assert_eq!(all_entries(&service).await.len(), DEMO_ENTRIES);

    let confirmed = in_terminal(&service, "dlq purge --label etl --batch-size 10", "y\n");
    assert_eq!(confirmed.code, 0, "{}", confirmed.stdout);
    assert!(
        confirmed.stdout.contains(&format!("deleted {etl}")),
        "{}",
        confirmed.stdout
    );
    // indicatif's spinner: its running count, redrawn in place.
    assert!(
        confirmed.stdout.contains(" deleted ["),
        "{}",
        confirmed.stdout
    );
    assert!(confirmed.stdout.contains("\x1b[2K"), "{}", confirmed.stdout);
    assert_eq!(all_entries(&service).await.len(), DEMO_ENTRIES - etl);

    let kept = in_terminal(&service, "token rotate", "n\n");
    assert_eq!(kept.code, 1, "{}", kept.stdout);
    assert_eq!(
        api(&service, "/v2/workflows/dlq?count=1").await.0,
        200,
        "token unchanged"
    );
}

#[tokio::test]
async fn get_shows_one_run_and_an_unknown_id_exits_4_with_the_api_message() {
    let (_data, service) = start();
    let id = ids(&all_entries(&service).await)[7].clone();
    let (_, expected) = api(&service, &format!("/v2/workflows/dlq/{id}")).await;
    let json = run(&service, &["dlq", "get", &id, "-o", "json"])
        .ok()
        .json();
    assert_eq!(json, expected);
    let ndjson = run(&service, &["dlq", "get", &id, "-o", "ndjson"]).ok();
    assert_eq!(ndjson.ndjson(), vec![expected.clone()]);
    let table = run(&service, &["dlq", "get", &id, "-o", "table"]).ok();
    assert!(
        table
            .stdout
            .contains(expected["messageId"].as_str().unwrap()),
        "{}",
        table.stdout
    );
    assert!(table.stdout.contains("workflowRunId"), "{}", table.stdout);

    let (status, error) = api(&service, "/v2/workflows/dlq/no-such-id").await;
    assert_eq!(status, 404);
    let missing = run(&service, &["dlq", "get", "no-such-id"]);
    assert_eq!(missing.code, 4, "{}", missing.stderr);
    assert!(
        missing.stderr.contains(error["error"].as_str().unwrap()),
        "the API's message as is: {}",
        missing.stderr
    );
    assert!(missing.stdout.is_empty());
}

#[tokio::test]
async fn delete_removes_each_id_and_a_missing_one_exits_4_after_the_others() {
    let (_data, service) = start();
    let all = ids(&all_entries(&service).await);
    let deleted = run(&service, &["dlq", "delete", &all[0], &all[1], "-o", "json"]).ok();
    assert_eq!(deleted.json(), json!({"deleted": 2}));
    for id in &all[..2] {
        assert_eq!(
            api(&service, &format!("/v2/workflows/dlq/{id}")).await.0,
            404
        );
    }
    assert_eq!(
        api(&service, &format!("/v2/workflows/dlq/{}", all[2]))
            .await
            .0,
        200
    );

    let again = run(
        &service,
        &["dlq", "delete", &all[0], &all[2], "-o", "ndjson"],
    );
    assert_eq!(again.code, 4, "{}", again.stderr);
    assert!(again.stderr.contains(&all[0]), "{}", again.stderr);
    assert_eq!(
        again.ndjson(),
        vec![json!({"dlqId": all[2], "deleted": true})]
    );
    assert_eq!(
        api(&service, &format!("/v2/workflows/dlq/{}", all[2]))
            .await
            .0,
        404
    );
    let table = run(&service, &["dlq", "delete", &all[3], "-o", "table"]).ok();
    assert_eq!(table.stdout.trim(), "deleted 1");
    assert_eq!(all_entries(&service).await.len(), DEMO_ENTRIES - 4);
}

#[tokio::test]
async fn purge_by_label_leaves_no_entry_so_labelled_and_touches_no_other() {
    let (_data, service) = start();
    let before = all_entries(&service).await;
    let (beta, others): (Vec<Value>, Vec<Value>) = before
        .into_iter()
        .partition(|entry| has_label(entry, "beta"));
    assert!(!beta.is_empty() && !others.is_empty());

    // Batches of 7 make the purge follow the cursor many times.
    let purged = run(
        &service,
        &[
            "dlq",
            "purge",
            "--label",
            "beta",
            "--yes",
            "--batch-size",
            "7",
            "-o",
            "json",
        ],
    )
    .ok();
    assert_eq!(purged.json(), json!({"deleted": beta.len()}));
    assert!(
        purged.stderr.is_empty(),
        "no progress on a pipe: {}",
        purged.stderr
    );
    let after = all_entries(&service).await;
    assert!(after.iter().all(|entry| !has_label(entry, "beta")));
    assert_eq!(
        ids(&after),
        ids(&others),
        "every other entry is still there"
    );
}

#[tokio::test]
async fn purge_refuses_without_a_filter_or_a_confirmation_and_all_entries_empties_the_dlq() {
    let (_data, service) = start();
    let unfiltered = run(&service, &["dlq", "purge", "--yes"]);
    assert_eq!(unfiltered.code, 2, "{}", unfiltered.stderr);
    assert!(
        unfiltered.stderr.contains("--all-entries"),
        "{}",
        unfiltered.stderr
    );
    // stdin is not a terminal here, so nobody could confirm: refused without --yes.
    let unconfirmed = run(&service, &["dlq", "purge", "--label", "etl"]);
    assert_eq!(unconfirmed.code, 2, "{}", unconfirmed.stderr);
    assert!(
        unconfirmed.stderr.contains("--yes"),
        "{}",
        unconfirmed.stderr
    );
    assert_eq!(
        all_entries(&service).await.len(),
        DEMO_ENTRIES,
        "nothing deleted"
    );

    let purged = run(
        &service,
        &[
            "dlq",
            "purge",
            "--all-entries",
            "--yes",
            "--batch-size",
            "64",
            "-o",
            "ndjson",
        ],
    )
    .ok();
    let batches = purged.ndjson();
    assert!(batches.len() >= 5, "{batches:?}");
    let total: i64 = batches.iter().map(|b| b["deleted"].as_i64().unwrap()).sum();
    assert_eq!(total, DEMO_ENTRIES as i64);
    assert!(all_entries(&service).await.is_empty());
    let table = run(
        &service,
        &["dlq", "purge", "--all-entries", "--yes", "-o", "table"],
    )
    .ok();
    assert_eq!(table.stdout.trim(), "deleted 0");
}

#[tokio::test]
async fn runs_cancel_removes_the_runs_entries_and_a_second_cancel_exits_4() {
    let (_data, service) = start();
    let (_, page) = api(&service, "/v2/workflows/dlq?workflowRunId=wfr_demo01000").await;
    assert!(!page["messages"].as_array().unwrap().is_empty());
    let cancelled = run(&service, &["runs", "cancel", "wfr_demo01000", "-o", "json"]).ok();
    assert_eq!(cancelled.json(), json!({"cancelled": 1}));
    let (_, page) = api(&service, "/v2/workflows/dlq?workflowRunId=wfr_demo01000").await;
    assert_eq!(page["messages"], json!([]));

    let again = run(
        &service,
        &[
            "runs",
            "cancel",
            "wfr_demo01000",
            "wfr_demo01001",
            "-o",
            "table",
        ],
    );
    assert_eq!(again.code, 4, "{}", again.stderr);
    assert!(again.stderr.contains("wfr_demo01000"), "{}", again.stderr);
    assert_eq!(
        again.stdout.trim(),
        "cancelled 1",
        "the other run still went"
    );
}

#[tokio::test]
async fn topics_and_index_get_agree_with_the_api_and_unknown_ones_exit_4() {
    let (_data, service) = start();
    let (_, topic) = api(&service, "/v2/topics/orders").await;
    assert_eq!(
        run(&service, &["topics", "get", "orders", "-o", "json"])
            .ok()
            .json(),
        topic
    );
    let table = run(&service, &["topics", "get", "orders", "-o", "table"]).ok();
    for endpoint in topic["endpoints"].as_array().unwrap() {
        assert!(
            table.stdout.contains(endpoint["url"].as_str().unwrap()),
            "{}",
            table.stdout
        );
    }
    let (status, error) = api(&service, "/v2/topics/no-such-group").await;
    assert_eq!(status, 404);
    let missing = run(&service, &["topics", "get", "no-such-group"]);
    assert_eq!(missing.code, 4);
    assert!(
        missing.stderr.contains(error["error"].as_str().unwrap()),
        "{}",
        missing.stderr
    );

    let (_, mut index) = api(&service, &format!("/v2/search/{DEMO_INDEX_ID}")).await;
    let mut listed = run(&service, &["index", "get", DEMO_INDEX_ID, "-o", "ndjson"])
        .ok()
        .ndjson();
    assert_eq!(listed.len(), 1);
    // The throughput series is bucketed by the minute, so only its shape can be compared.
    let points = |value: &mut Value| value["throughput_vector"].take().as_array().map(Vec::len);
    assert_eq!(points(&mut listed[0]), points(&mut index));
    assert_eq!(listed[0], index);
    let table = run(&service, &["index", "get", DEMO_INDEX_ID, "-o", "table"]).ok();
    assert!(
        table.stdout.contains("throughput_vector"),
        "{}",
        table.stdout
    );
    assert!(table.stdout.contains('▁'), "a sparkline: {}", table.stdout);
    let unknown = "00000000-0000-4000-8000-000000000000";
    let missing = run(&service, &["index", "get", unknown]);
    assert_eq!(missing.code, 4, "{}", missing.stderr);
    assert!(
        missing.stderr.starts_with("error: 404"),
        "{}",
        missing.stderr
    );
}

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

    let bad = run(&service, &["stats", "account", "--period", "2h"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("30d"),
        "names the allowed periods: {}",
        bad.stderr
    );
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
    let refused = run(&service, &["dlq", "list"]);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert!(
        refused.stderr.contains(error["error"].as_str().unwrap()),
        "the API's message as is: {}",
        refused.stderr
    );
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

    let no_token = ran(courier(&service, &["dlq", "list"]).env_remove("COURIER_SERVICE_TOKEN"));
    assert_eq!(no_token.code, 3, "{}", no_token.stderr);
    assert!(
        no_token.stderr.contains("COURIER_SERVICE_TOKEN"),
        "{}",
        no_token.stderr
    );
    let no_key =
        ran(courier(&service, &["index", "get", DEMO_INDEX_ID])
            .env_remove("COURIER_MANAGEMENT_KEY"));
    assert_eq!(no_key.code, 3, "{}", no_key.stderr);
    let no_address = ran(courier(&service, &["dlq", "list"]).env_remove("COURIER_BASE_URL"));
    assert_eq!(no_address.code, 2, "{}", no_address.stderr);
    assert!(
        no_address.stderr.contains("COURIER_BASE_URL"),
        "{}",
        no_address.stderr
    );
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
            .env("COURIER_SERVICE_TOKEN", "own-token")
            .env("COURIER_CUSTOMER_ID", "own@courier.dev")
            .env("COURIER_MANAGEMENT_KEY", "own-key")
            .env("RUST_LOG", "warn"),
    );
    let listed =
        ran(courier(&service, &["dlq", "list", "-o", "json"])
            .env("COURIER_SERVICE_TOKEN", "own-token"))
        .ok();
    assert_eq!(listed.json(), json!({"messages": []}));
    ran(courier(&service, &["stats", "account"])
        .env("COURIER_CUSTOMER_ID", "own@courier.dev")
        .env("COURIER_MANAGEMENT_KEY", "own-key"))
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
    let refused = run(
        &service,
        &["dlq", "list", "--all", "--page-size", "1", "--retries", "0"],
    );
    assert_eq!(refused.code, 5, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("max_requests_per_second"),
        "{}",
        refused.stderr
    );
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
    let help = Command::new(env!("CARGO_BIN_EXE_courier"))
        .arg("--help")
        .output()
        .expect("help");
    let help = String::from_utf8(help.stdout).expect("utf-8");
    for expected in [
        "Exit codes",
        "courier dlq purge --label beta --yes",
        "130",
        "rate limited",
    ] {
        assert!(help.contains(expected), "{expected} missing: {help}");
    }
    let list_help = Command::new(env!("CARGO_BIN_EXE_courier"))
        .args(["dlq", "list", "--help"])
        .output()
        .expect("help");
    let list_help = String::from_utf8(list_help.stdout).expect("utf-8");
    for flag in [
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
    ] {
        assert!(list_help.contains(flag), "{flag} missing: {list_help}");
    }
    for shell in ["bash", "zsh", "fish"] {
        let script = Command::new(env!("CARGO_BIN_EXE_courier"))
            .args(["completions", shell])
            .output()
            .expect("completions");
        assert!(script.status.success());
        let script = String::from_utf8(script.stdout).expect("utf-8");
        for word in ["purge", "cancel", "rotate", "failure-function-state"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
}
