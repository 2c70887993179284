//! dlq list: the API page for every filter, the cursor, output formats and colour.

use super::*;

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
    // The question says how many entries would go, as the console's does.
    assert!(
        declined
            .stdout
            .contains(&format!("matching label=etl ({etl} entries)?")),
        "{}",
        declined.stdout
    );
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
