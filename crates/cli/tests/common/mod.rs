//! Shared by the tests that run the real `courier` binary: a command with no `COURIER_*`
//! variables of the test runner's environment leaking in, and the started process.
// Every test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The flags that fix an account's credentials instead of letting the service draw them:
/// service token, customer id, management key and admin token, in that order.
pub(crate) fn credentials(
    [service_token, customer_id, management_key, admin_token]: [&'static str; 4],
) -> [&'static str; 8] {
    [
        "--service-token",
        service_token,
        "--customer-id",
        customer_id,
        "--management-key",
        management_key,
        "--admin-token",
        admin_token,
    ]
}

/// `courier serve` with the account's credentials fixed (see [`credentials`]), logging at
/// `log_level` to `stderr`, started.
pub(crate) fn serve_as(
    data_dir: &std::path::Path,
    account: [&'static str; 4],
    log_level: &str,
    stderr: Stdio,
) -> Courier {
    let mut command = courier_serve(data_dir);
    command
        .args(credentials(account))
        .env("RUST_LOG", log_level);
    Courier::spawn(command.stderr(stderr))
}

/// `courier serve --listen 127.0.0.1:0 --data-dir DATA_DIR`, stdout piped for the banner. An
/// existing `data_dir` is made private first (`0700`): courier refuses one that other users can
/// reach, and a temporary directory is not always created private.
pub(crate) fn courier_serve(data_dir: &std::path::Path) -> Command {
    make_private(data_dir);
    let mut command = Command::new(env!("CARGO_BIN_EXE_courier"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .stdout(Stdio::piped());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") {
            command.env_remove(name);
        }
    }
    command
}

/// `courier serve --listen 127.0.0.1:0` with `COURIER_STORE` (a PostgreSQL connection string)
/// and the account's credentials (as [`credentials`] orders them) in its environment, its log at `warn` on the test's stderr,
/// started: one of several processes serving one service.
pub(crate) fn serve_on_postgres(
    store: &str,
    [service_token, customer_id, management_key, admin_token]: [&'static str; 4],
) -> Courier {
    let mut command = Command::new(env!("CARGO_BIN_EXE_courier"));
    command
        .args(["serve", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") {
            command.env_remove(name);
        }
    }
    // Secrets in the environment, as the help advises: flags would show them to `ps`.
    command
        .env("COURIER_STORE", store)
        .env("COURIER_SERVICE_TOKEN", service_token)
        .env("COURIER_CUSTOMER_ID", customer_id)
        .env("COURIER_MANAGEMENT_KEY", management_key)
        .env("COURIER_ADMIN_TOKEN", admin_token)
        .env("RUST_LOG", "warn");
    Courier::spawn(&mut command)
}

/// `courier serve --demo` with the admin API (`admin_token`) in a new temporary data directory,
/// its log on the test's stderr: the service the client-side tests run against.
pub(crate) fn serve_demo(admin_token: &str) -> (tempfile::TempDir, Courier) {
    let data = tempfile::tempdir().expect("tempdir");
    let courier = Courier::spawn(
        courier_serve(data.path())
            .args(["--demo", "--admin-token", admin_token])
            .env("RUST_LOG", "warn")
            .stderr(Stdio::inherit()),
    );
    (data, courier)
}

/// Sets `dir` to mode `0700` when it exists.
pub(crate) fn make_private(dir: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt as _;
    if dir.is_dir() {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .expect("chmod 700 the data directory");
    }
}

/// A started `courier serve`, killed when dropped (so a failing test leaves no process behind).
pub(crate) struct Courier {
    pub child: Child,
    /// The messaging base URL from the banner.
    pub base: String,
    /// The management base URL from the banner (the same as `base` unless split).
    pub management: String,
}

impl Courier {
    /// Spawns `command` (from [`courier_serve`]) and reads the addresses from its banner.
    pub(crate) fn spawn(command: &mut Command) -> Courier {
        let mut child = command.spawn().expect("the courier binary starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        let (mut base, mut management) = (None, None);
        for line in lines.by_ref() {
            let line = line.expect("banner line");
            let address = |rest: &str| rest.split_whitespace().next().map(str::to_owned);
            if let Some(rest) = line.trim().strip_prefix("messaging:") {
                base = address(rest);
            } else if let Some(rest) = line.trim().strip_prefix("management:") {
                management = address(rest);
                break;
            }
        }
        // Keep draining stdout, as a supervisor would, so the process never blocks on a pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Courier {
            base: base.expect("the banner names the messaging address"),
            management: management.expect("the banner names the management address"),
            child,
        }
    }

    /// Sends `signal` (`-TERM`, `-KILL`) with kill(1).
    pub(crate) fn signal(&self, signal: &str) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args([signal, &pid])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "kill {signal} {pid} failed");
    }

    /// SIGTERM, then the exit status, waiting at most 20 s.
    pub(crate) fn terminate(&mut self) -> ExitStatus {
        self.signal("-TERM");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "courier did not stop within 20 s of SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Courier {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The variable that makes a missing privilege (root for a mount, `setpriv` to switch to
/// another user) fail a test instead of skipping it; CI sets it.
pub(crate) const REQUIRE_PRIVILEGES: &str = "COURIER_REQUIRE_PRIVILEGES";

/// Called where a test cannot arrange what it needs because the machine does not allow it
/// (`why`): fails the test when [`REQUIRE_PRIVILEGES`] is `1`, else says SKIPPED on stderr so
/// the caller can return.
pub(crate) fn missing_privilege(why: &str) {
    if std::env::var(REQUIRE_PRIVILEGES).as_deref() == Ok("1") {
        panic!("{REQUIRE_PRIVILEGES}=1, but this test cannot run here: {why}");
    }
    eprintln!("SKIPPED: {why}");
}

/// `program` as the unprivileged user `nobody` (uid and gid 65534, no groups), through setpriv.
pub(crate) fn as_nobody(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new("setpriv");
    command
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(program);
    command
}

/// Whether this process can switch to `nobody`; reports the missing privilege
/// ([`missing_privilege`]) and answers `false` when it cannot.
pub(crate) fn can_switch_to_nobody() -> bool {
    match as_nobody("true").output() {
        Ok(output) if output.status.success() => true,
        Ok(output) => {
            missing_privilege(&format!(
                "setpriv cannot switch to the user nobody (needs root): {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
            false
        }
        Err(error) => {
            missing_privilege(&format!("cannot run setpriv to switch users: {error}"));
            false
        }
    }
}

/// Inserts the entries numbered `numbers` through the admin API at `base` (admin token `admin`),
/// labelled `label`: entry `n` has dlqId `e{n:06}` and workflowRunId `wfr_{n}`.
pub(crate) async fn insert_entries(
    http: &reqwest::Client,
    base: &str,
    admin: &str,
    numbers: std::ops::Range<usize>,
    label: &str,
) {
    let batch: Vec<serde_json::Value> = numbers
        .map(|n| {
            serde_json::json!({
                "dlqId": format!("e{n:06}"),
                "workflowUrl": "https://example.com/wf",
                "workflowRunId": format!("wfr_{n}"),
                "workflowCreatedAt": 1_700_000_000_000_i64,
                "url": "https://example.com/step",
                "method": "POST",
                "maxRetries": 3,
                "labels": [label],
            })
        })
        .collect();
    let response = http
        .post(format!("{base}/admin/v1/dlq"))
        .bearer_auth(admin)
        .json(&batch)
        .send()
        .await
        .expect("the admin API answers");
    let status = response.status().as_u16();
    let body = response.text().await.unwrap_or_default();
    assert_eq!(status, 201, "insert: {body}");
}
