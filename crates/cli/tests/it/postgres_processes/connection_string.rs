//! The connection string, which holds the database's password: nothing courier writes contains
//! it, `--store` is warned about and `--store-file` keeps it off the command line, and an
//! `sslmode` asking for TLS is refused, since courier's PostgreSQL connection has none.

use super::*;

/// `courier serve` on `store`, everything it writes to stdout and stderr into `log`.
fn serve_logging_to(store: &str, log: &std::path::Path, level: &str) -> std::process::Child {
    let file = std::fs::File::create(log).expect("log file");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_courier"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--admin-token", ADMIN])
        .stdout(file.try_clone().expect("log file"))
        .stderr(file);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") {
            command.env_remove(name);
        }
    }
    command
        .env("COURIER_STORE", store)
        .env("RUST_LOG", level)
        .spawn()
        .expect("courier starts")
}

/// The connection string's password, which nothing courier writes may contain.
fn password_of(url: &str) -> String {
    let config: postgres::Config = url.parse().expect("a connection string");
    String::from_utf8(
        config
            .get_password()
            .expect("CI's database has a password")
            .to_vec(),
    )
    .expect("a UTF-8 password")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_strings_password_is_never_written() {
    let Some(database) = TestDatabase::create() else {
        return;
    };
    let password = password_of(database.url());
    let dir = tempfile::tempdir().expect("tempdir");

    // Serving, with every log line on: the banner, the migrations, the requests.
    let log = dir.path().join("serving.log");
    let mut child = serve_logging_to(database.url(), &log, "trace");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let base = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.trim().starts_with("messaging:")) {
            let address = line.trim()["messaging:".len()..].split_whitespace().next();
            break address.expect("an address").to_owned();
        }
        assert!(std::time::Instant::now() < deadline, "no banner: {text}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let http = reqwest::Client::new();
    let health = send(http.get(format!("{base}/health"))).await;
    assert_eq!(health, (200, serde_json::json!({ "status": "ok" })));
    insert(&http, &base, 0, 3, "logged").await;
    child.kill().expect("kill");
    child.wait().expect("wait");
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(
        text.contains("store:"),
        "the banner names the store: {text}"
    );
    assert!(!text.contains(&password), "the password is in the log");

    // Refused: a wrong password, and a string that does not parse. The errors say what is
    // wrong and where, without the secret.
    let wrong = database.url().replace(&password, "wrong-secret-9f2c");
    let refused = dir.path().join("refused.log");
    let status = serve_logging_to(&wrong, &refused, "trace")
        .wait()
        .expect("exit");
    let text = std::fs::read_to_string(&refused).expect("log");
    assert!(!status.success(), "a wrong password is refused: {text}");
    assert!(text.contains("password authentication failed"), "{text}");
    assert!(
        !text.contains("wrong-secret-9f2c"),
        "the wrong password is in the error: {text}"
    );
    let malformed = "postgres://courier:malformed-secret-51ab@127.0.0.1:notaport/db";
    let status = serve_logging_to(malformed, &refused, "trace")
        .wait()
        .expect("exit");
    let text = std::fs::read_to_string(&refused).expect("log");
    assert!(!status.success());
    assert!(text.contains("--store"), "{text}");
    assert!(!text.contains("malformed-secret-51ab"), "{text}");
}

/// `courier serve` with no `COURIER_*` of the test runner's, the store given by `store`
/// (arguments and variables), run to its end: its exit status and stderr. For stores it cannot
/// open, so it ends.
fn serve_refused(store: impl FnOnce(&mut std::process::Command)) -> (bool, String) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_courier"));
    command.args(["serve", "--listen", "127.0.0.1:0"]);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") {
            command.env_remove(name);
        }
    }
    store(&mut command);
    let output = command
        .env("RUST_LOG", "warn")
        .output()
        .expect("courier runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Nothing listens on port 1: courier parses the string, says what it says about it, and fails
/// to connect, naming the store without its password.
const NOWHERE: &str = "postgres://courier:nowhere-secret-41d7@127.0.0.1:1/courier";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_flag_with_a_password_is_warned_about_and_store_file_keeps_it_off_the_command_line()
{
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("store");
    std::fs::write(&file, format!("{NOWHERE}\n")).expect("store file");
    let warning = "--store is visible to every local user in the process list (/proc/PID/cmdline)";
    let (started, flag) = serve_refused(|command| {
        command.args(["--store", NOWHERE]);
    });
    assert!(!started, "{flag}");
    assert!(
        flag.contains(warning) && flag.contains("--store-file"),
        "{flag}"
    );
    assert!(!flag.contains("nowhere-secret-41d7"), "{flag}");
    for (how, (started, stderr)) in [
        (
            "COURIER_STORE",
            serve_refused(|command| {
                command.env("COURIER_STORE", NOWHERE);
            }),
        ),
        (
            "--store-file",
            serve_refused(|command| {
                command.arg("--store-file").arg(&file);
            }),
        ),
        (
            "COURIER_STORE_FILE",
            serve_refused(|command| {
                command.env("COURIER_STORE_FILE", &file);
            }),
        ),
        (
            "a flag without a password",
            serve_refused(|command| {
                command.args(["--store", "postgres://courier@127.0.0.1:1/courier"]);
            }),
        ),
    ] {
        assert!(!started, "{how}: {stderr}");
        assert!(
            !stderr.contains("visible to every local user"),
            "{how}: {stderr}"
        );
        assert!(
            stderr.contains("postgres://courier@127.0.0.1:1/courier"),
            "{how}: the store was read and named: {stderr}"
        );
    }
    let (_, both) = serve_refused(|command| {
        command
            .args(["--store", NOWHERE])
            .arg("--store-file")
            .arg(&file);
    });
    assert!(
        both.contains("--store-file") && !both.contains("nowhere-secret-41d7"),
        "{both}"
    );

    // With a database: served from the file, and the password is not in the process's command
    // line, where every local user reads it.
    let Some(database) = TestDatabase::create() else {
        return;
    };
    std::fs::write(&file, database.url()).expect("store file");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_courier"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--store-file"])
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") {
            command.env_remove(name);
        }
    }
    let courier = Courier::spawn(command.args(common::credentials(ACCOUNT)));
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", courier.child.id())).expect("cmdline");
    let password = password_of(database.url());
    assert!(
        !String::from_utf8_lossy(&cmdline).contains(&password),
        "the password is on the command line"
    );
    let health = send(reqwest::Client::new().get(format!("{}/health", courier.base))).await;
    assert_eq!(health.0, 200, "{health:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sslmode_asking_for_tls_is_refused_saying_the_connection_has_no_tls() {
    for store in [
        format!("{NOWHERE}?sslmode=require"),
        format!("{NOWHERE}?sslmode=verify-ca"),
        format!("{NOWHERE}?sslmode=verify-full"),
        "host=127.0.0.1 port=1 user=courier password=nowhere-secret-41d7 sslmode=verify-full"
            .to_owned(),
    ] {
        let (started, stderr) = serve_refused(|command| {
            command.env("COURIER_STORE", &store);
        });
        assert!(!started, "{store}: {stderr}");
        assert!(
            stderr.contains("courier's PostgreSQL connection has no TLS")
                && stderr.contains("sslmode=disable"),
            "{store}: {stderr}"
        );
        assert!(!stderr.contains("nowhere-secret-41d7"), "{stderr}");
        // Refused before connecting: nothing about the connection.
        assert!(!stderr.contains("cannot connect"), "{store}: {stderr}");
    }
    // `prefer` is plain TCP here, and said so on start.
    let (started, stderr) = serve_refused(|command| {
        command.env("COURIER_STORE", format!("{NOWHERE}?sslmode=prefer"));
    });
    assert!(!started);
    assert!(
        stderr.contains("warning:")
            && stderr.contains("sslmode=prefer")
            && stderr.contains("plain TCP"),
        "{stderr}"
    );
    assert!(!stderr.contains("nowhere-secret-41d7"), "{stderr}");
    let (_, unsaid) = serve_refused(|command| {
        command.env("COURIER_STORE", NOWHERE);
    });
    assert!(!unsaid.contains("sslmode"), "{unsaid}");

    // With a database, `prefer` and `disable` serve.
    let Some(database) = TestDatabase::create() else {
        return;
    };
    for mode in ["prefer", "disable"] {
        let url = format!("{}&sslmode={mode}", database.url());
        let courier = serve_on_postgres(&url, ACCOUNT);
        let health = send(reqwest::Client::new().get(format!("{}/health", courier.base))).await;
        assert_eq!(health.0, 200, "{mode}: {health:?}");
    }
}
