//! Profiles: a profile fills in what flags and variables leave out, its credentials go only to
//! its own address, and a broken profiles file is named by line and key, never by a value.

use super::*;

#[tokio::test]
async fn a_profile_fills_in_what_flags_and_variables_leave_out() {
    let (data, service) = start();
    let config = data.path().join("profiles.toml");
    std::fs::write(
        &config,
        format!(
            "[local]\nbase_url = \"{}\"\nservice_token = \"{DEMO_SERVICE_TOKEN}\"\n\
             customer_id = \"{DEMO_CUSTOMER_ID}\"\nmanagement_key = \"{DEMO_MANAGEMENT_KEY}\"\n\n\
             [broken]\nbase_url = \"http://127.0.0.1:1\"\n",
            service.base
        ),
    )
    .expect("profiles file");
    let with_config = |args: &[&str]| {
        let mut command = bare(args);
        command.env("COURIER_CONFIG", &config);
        command
    };
    let listed = ran(&mut with_config(&[
        "--profile",
        "local",
        "dlq",
        "list",
        "--limit",
        "1",
    ]))
    .ok();
    assert_eq!(listed.ndjson().len(), 1);
    ran(with_config(&["stats", "account"]).env("COURIER_PROFILE", "local")).ok();
    // A variable wins over the profile: a wrong token in the environment is refused (exit 3).
    ran(with_config(&["--profile", "local", "dlq", "list"])
        .env("COURIER_SERVICE_TOKEN", "wrong-token-from-the-environment"))
    .exits(3);
    // A flag wins over the profile: the broken profile's dead address is overridden.
    ran(&mut with_config(&[
        "--profile",
        "broken",
        "--base-url",
        &service.base,
        "--service-token",
        DEMO_SERVICE_TOKEN,
        "dlq",
        "list",
        "--limit",
        "1",
    ]))
    .ok();
    ran(&mut with_config(&["--profile", "staging", "dlq", "list"]))
        .exits(2)
        .says("no profile `staging`")
        .says("broken, local");
}

/// A listener standing for another service: it answers every request 401 and keeps what it
/// was sent, so a test can tell whether credentials reached it.
struct Elsewhere {
    url: String,
    received: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Elsewhere {
    fn start() -> Elsewhere {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let received = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(2)));
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                kept.lock()
                    .expect("lock")
                    .push(String::from_utf8_lossy(&head).into_owned());
                let body = r#"{"error":"not this service"}"#;
                let _ = std::io::Write::write_all(
                    &mut stream,
                    format!(
                        "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\
                         content-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    )
                    .as_bytes(),
                );
            }
        });
        Elsewhere { url, received }
    }

    fn received(&self) -> Vec<String> {
        self.received.lock().expect("lock").clone()
    }
}

#[tokio::test]
async fn a_profiles_credentials_go_only_to_the_profiles_own_address() {
    let (data, service) = start();
    let elsewhere = Elsewhere::start();
    let config = data.path().join("profiles.toml");
    let account = format!(
        "service_token = \"{DEMO_SERVICE_TOKEN}\"\ncustomer_id = \"{DEMO_CUSTOMER_ID}\"\n\
         management_key = \"{DEMO_MANAGEMENT_KEY}\"\n"
    );
    std::fs::write(
        &config,
        format!(
            "[prod]\nbase_url = \"{}\"\n{account}\n[keys]\n{account}",
            service.base
        ),
    )
    .expect("profiles file");
    let default_config = data.path().join("default.toml");
    std::fs::write(
        &default_config,
        format!("[default]\nbase_url = \"{}\"\n{account}", service.base),
    )
    .expect("profiles file");
    let with = |config: &std::path::Path, args: &[&str]| {
        let mut command = bare(args);
        command.env("COURIER_CONFIG", config);
        command
    };
    let away = elsewhere.url.as_str();
    let template = format!("{away}/{{region}}");
    // An address from a flag or a variable beside the profile's credentials: refused before
    // anything is sent, saying where the address came from and what to do.
    for (what, mut command, source, remedy) in [
        (
            "COURIER_BASE_URL, dlq list",
            with(
                &config,
                &["--profile", "prod", "dlq", "list", "--retries", "0"],
            ),
            "COURIER_BASE_URL",
            "--service-token or COURIER_SERVICE_TOKEN",
        ),
        (
            "COURIER_BASE_URL, stats account (Basic)",
            with(
                &config,
                &["--profile", "prod", "stats", "account", "--retries", "0"],
            ),
            "COURIER_BASE_URL",
            "--management-key",
        ),
        (
            "--base-url",
            with(
                &config,
                &[
                    "--profile",
                    "prod",
                    "--base-url",
                    away,
                    "dlq",
                    "list",
                    "--retries",
                    "0",
                ],
            ),
            "--base-url",
            "drop --base-url",
        ),
        (
            "--management-url, token rotate",
            with(
                &config,
                &[
                    "--profile",
                    "prod",
                    "--management-url",
                    away,
                    "token",
                    "rotate",
                    "--yes",
                ],
            ),
            "--management-url",
            "--customer-id and --management-key",
        ),
        (
            "--region with a template",
            with(
                &config,
                &[
                    "--profile",
                    "prod",
                    "--region",
                    "us-east-1",
                    "--region-url-template",
                    &template,
                    "dlq",
                    "list",
                ],
            ),
            "--region",
            "--service-token",
        ),
        (
            "a profile without an address",
            with(
                &config,
                &["--profile", "keys", "dlq", "list", "--retries", "0"],
            ),
            "COURIER_BASE_URL",
            "add base_url to profile `keys`",
        ),
        (
            "the default profile",
            with(&default_config, &["dlq", "list", "--retries", "0"]),
            "COURIER_BASE_URL",
            "profile `default`",
        ),
        (
            "verify",
            with(&config, &["--profile", "prod", "verify"]),
            "COURIER_BASE_URL",
            "--service-token",
        ),
    ] {
        if source == "COURIER_BASE_URL" {
            command.env("COURIER_BASE_URL", away);
        }
        let refused = ran(&mut command);
        assert_eq!(refused.code, 2, "{what}: {}", refused.stderr);
        assert!(
            refused.stderr.contains(source) && refused.stderr.contains(remedy),
            "{what}: {}",
            refused.stderr
        );
        assert!(
            refused.stderr.contains("only to its own address"),
            "{what}: {}",
            refused.stderr
        );
        assert!(
            !refused.stderr.contains(DEMO_MANAGEMENT_KEY)
                && !refused.stderr.contains(DEMO_SERVICE_TOKEN),
            "{what}: {}",
            refused.stderr
        );
    }
    assert_eq!(
        elsewhere.received(),
        Vec::<String>::new(),
        "nothing reached the other address"
    );
    // The profile's own address, and credentials given beside an address, still work.
    ran(&mut with(
        &config,
        &["--profile", "prod", "dlq", "list", "--limit", "1"],
    ))
    .ok();
    ran(&mut with(
        &config,
        &["--profile", "prod", "stats", "account"],
    ))
    .ok();
    ran(with(
        &config,
        &["--profile", "prod", "dlq", "list", "--limit", "1"],
    )
    .env("COURIER_BASE_URL", &service.base)
    .env("COURIER_SERVICE_TOKEN", DEMO_SERVICE_TOKEN))
    .ok();
    ran(&mut with(
        &config,
        &[
            "--profile",
            "keys",
            "--base-url",
            &service.base,
            "--customer-id",
            DEMO_CUSTOMER_ID,
            "--management-key",
            DEMO_MANAGEMENT_KEY,
            "stats",
            "account",
        ],
    ))
    .ok();
    // Credentials of the caller's own sent elsewhere are the caller's choice.
    ran(with(
        &config,
        &["--profile", "prod", "dlq", "list", "--retries", "0"],
    )
    .env("COURIER_BASE_URL", away)
    .env("COURIER_SERVICE_TOKEN", "the-callers-own-token"))
    .exits(3);
    let sent = elsewhere.received();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(sent[0].contains("the-callers-own-token"), "{sent:?}");
    assert!(!sent[0].contains(DEMO_SERVICE_TOKEN), "{sent:?}");
}

#[tokio::test]
async fn a_broken_profiles_file_is_named_with_its_line_and_key_never_a_value() {
    let data = tempfile::tempdir().expect("tempdir");
    let config = data.path().join("profiles.toml");
    let path = config.to_str().expect("utf-8 path");
    // (the file, its line at fault, the key to name, the secret that must not be shown)
    for (text, line, key, secret) in [
        (
            "[prod]\nbase_url = \"http://127.0.0.1:1\"\nservce_token = \"typo-secret-7c1e\"\n",
            3,
            Some("servce_token"),
            "typo-secret-7c1e",
        ),
        (
            "[prod]\nmanagement_key = 48213957204\n",
            2,
            Some("management_key"),
            "48213957204",
        ),
        (
            "[prod]\nservice_token = unquoted-secret-a9\n",
            2,
            Some("service_token"),
            "unquoted-secret-a9",
        ),
        (
            "[prod]\nservice_token = \"unterminated-secret-3b\n",
            2,
            Some("service_token"),
            "unterminated-secret-3b",
        ),
        (
            "prod = \"table-less-secret-5d\"\n",
            1,
            Some("prod"),
            "table-less-secret-5d",
        ),
        (
            "[prod]\nservice_token \"pasted=secret-2f\"\n",
            2,
            None,
            "pasted=secret-2f",
        ),
        (
            "[prod]\npasted-alone-secret-8e\n",
            2,
            None,
            "pasted-alone-secret-8e",
        ),
    ] {
        std::fs::write(&config, text).expect("profiles file");
        let refused =
            ran(bare(&["--profile", "prod", "dlq", "list"]).env("COURIER_CONFIG", &config))
                .exits(2)
                .says(path)
                .says(&format!("line {line}"));
        if let Some(key) = key {
            assert!(
                refused.stderr.contains(&format!("`{key}`")),
                "{text:?}: {}",
                refused.stderr
            );
        }
        assert!(
            !refused.stderr.contains(secret)
                && !refused.stderr.contains(&secret[..secret.len() - 3]),
            "{text:?} shows its value: {}",
            refused.stderr
        );
    }
}
