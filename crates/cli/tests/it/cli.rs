//! The `courier` client commands as a user runs them: the real binary as a process, configured
//! only through `COURIER_*` variables (and flags), against `courier serve --demo` on a real
//! socket; every command, every output format, and the exit codes scripts rely on.

use crate::common;

use common::Courier;
use courier_service::demo::{
    DEMO_CUSTOMER_ID, DEMO_ENTRIES, DEMO_INDEX_ID, DEMO_MANAGEMENT_KEY, DEMO_SERVICE_TOKEN,
};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

const ADMIN_TOKEN: &str = "admin-secret-for-tests";

/// `courier serve --demo` on an ephemeral port, with the admin API on.
fn start() -> (tempfile::TempDir, Courier) {
    common::serve_demo(ADMIN_TOKEN)
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

/// `courier ARGS` with no `COURIER_*` variable at all: only what the arguments say.
fn bare(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_courier"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") {
            command.env_remove(name);
        }
    }
    command.args(args).stdin(Stdio::null());
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
        self.exits(0)
    }

    /// Asserts the exit code and returns self, showing stderr otherwise.
    fn exits(self, code: i32) -> Ran {
        assert_eq!(self.code, code, "stderr: {}", self.stderr);
        self
    }

    /// Asserts that stderr contains `text` and returns self.
    fn says(self, text: &str) -> Ran {
        assert!(
            self.stderr.contains(text),
            "{text:?} not in stderr: {}",
            self.stderr
        );
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

mod changes;
mod connections;
mod listing;
mod profiles;
mod settings;
