//! The real `courier` binary: starts with `serve --demo`, answers, stops cleanly on SIGTERM, and
//! comes back with the same data.

use crate::common;

use common::Courier;

use std::process::Stdio;

/// Starts the binary on an ephemeral port and reads the address from its banner.
fn start(data_dir: &std::path::Path) -> Courier {
    start_with(data_dir, &[])
}

fn start_with(data_dir: &std::path::Path, extra: &[&str]) -> Courier {
    Courier::spawn(
        common::courier_serve(data_dir)
            .args(["--demo", "--admin-token", "admin-secret-for-tests"])
            .args(extra)
            .env("RUST_LOG", "warn")
            .stderr(Stdio::inherit()),
    )
}

async fn get(url: String, auth: (&str, &str)) -> (u16, serde_json::Value) {
    let client = reqwest::Client::new();
    let request = match auth {
        ("bearer", token) => client.get(url).bearer_auth(token),
        (_, _) => client.get(url).basic_auth(
            courier_service::demo::DEMO_CUSTOMER_ID,
            Some(courier_service::demo::DEMO_MANAGEMENT_KEY),
        ),
    };
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    (
        status,
        response.json().await.unwrap_or(serde_json::Value::Null),
    )
}

#[tokio::test]
async fn serve_demo_answers_stops_on_sigterm_and_keeps_its_data() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut running = start(data.path());
    let token = ("bearer", courier_service::demo::DEMO_SERVICE_TOKEN);
    let basic = ("basic", "");

    let health = reqwest::get(format!("{}/health", running.base))
        .await
        .expect("health");
    assert_eq!(health.status(), 200);
    let (status, page) = get(
        format!("{}/v2/workflows/dlq?count=100", running.base),
        token,
    )
    .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["messages"].as_array().map(Vec::len), Some(100));
    assert!(page["cursor"].is_string());
    let (status, billing) = get(
        format!(
            "{}/v2/workflows/dlq?label=billing&failureFunctionState=CALLBACK_FAIL",
            running.base
        ),
        token,
    )
    .await;
    assert_eq!(status, 200);
    let billing = billing["messages"].as_array().expect("messages").clone();
    assert!(!billing.is_empty());
    assert!(billing.iter().all(|m| {
        m["failureFunctionState"] == "CALLBACK_FAIL"
            && m["labels"]
                .as_array()
                .is_some_and(|l| l.contains(&"billing".into()))
    }));
    let (status, group) = get(format!("{}/v2/topics/orders", running.base), token).await;
    assert_eq!(
        (status, group["endpoints"].as_array().map(Vec::len)),
        (200, Some(2))
    );
    let (status, index) = get(
        format!(
            "{}/v2/search/{}",
            running.base,
            courier_service::demo::DEMO_INDEX_ID
        ),
        basic,
    )
    .await;
    assert_eq!((status, index["name"].as_str()), (200, Some("products")));
    let (status, stats) = get(format!("{}/v2/svc/stats?period=1d", running.base), basic).await;
    assert_eq!(
        (status, stats["dlq_message_count"].as_i64()),
        (200, Some(courier_service::demo::DEMO_ENTRIES as i64))
    );

    let exit = running.terminate();
    assert!(exit.success(), "clean shutdown on SIGTERM: {exit:?}");

    let running = start(data.path());
    let (status, stats) = get(format!("{}/v2/svc/stats", running.base), basic).await;
    assert_eq!(status, 200);
    assert_eq!(
        stats["dlq_message_count"].as_i64(),
        Some(courier_service::demo::DEMO_ENTRIES as i64),
        "restart keeps the data and seeds nothing twice"
    );
    let used: f64 = stats["daily_used"]
        .as_array()
        .expect("series")
        .iter()
        .filter_map(|p| p["y"].as_f64())
        .sum();
    // list, filtered list, URL group, index and stats: five interface requests before the restart.
    assert_eq!(
        used, 5.0,
        "the requests served before the restart were counted and kept"
    );
}

#[tokio::test]
async fn management_can_listen_on_its_own_address() {
    let data = tempfile::tempdir().expect("tempdir");
    let running = start_with(data.path(), &["--management-listen", "127.0.0.1:0"]);
    assert_ne!(running.base, running.management);
    let token = ("bearer", courier_service::demo::DEMO_SERVICE_TOKEN);
    let basic = ("basic", "");
    // Each interface is served on its own listener, and only there.
    let (management, messaging) = (&running.management, &running.base);
    let cases = [
        (management, "/v2/svc/stats", basic, 200),
        (messaging, "/v2/svc/stats", basic, 404),
        (messaging, "/v2/topics/orders", token, 200),
        (management, "/v2/topics/orders", token, 404),
    ];
    for (listener, path, credentials, status) in cases {
        let url = format!("{listener}{path}");
        assert_eq!(get(url, credentials).await.0, status, "{listener}{path}");
    }
    let health = reqwest::get(format!("{}/health", running.management))
        .await
        .expect("health");
    assert_eq!(health.status(), 200);
}

/// A self-signed certificate for 127.0.0.1 (its own CA), as PEM: (certificate, key).
fn self_signed_localhost() -> (String, String) {
    let key = rcgen::KeyPair::generate().expect("key");
    let certificate = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .expect("params")
        .self_signed(&key)
        .expect("certificate");
    (certificate.pem(), key.serialize_pem())
}

#[tokio::test]
async fn serve_with_tls_cert_and_key_speaks_https_only() {
    let data = tempfile::tempdir().expect("data dir");
    let (cert_pem, key_pem) = self_signed_localhost();
    let cert = data.path().join("cert.pem");
    let key = data.path().join("key.pem");
    std::fs::write(&cert, &cert_pem).expect("cert file");
    std::fs::write(&key, &key_pem).expect("key file");
    let mut command = common::courier_serve(&data.path().join("store"));
    command
        .arg("--tls-cert")
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key);
    let running = Courier::spawn(&mut command);
    assert!(
        running.base.starts_with("https://127.0.0.1:"),
        "{}",
        running.base
    );

    let trusting = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(cert_pem.as_bytes()).unwrap())
        .build()
        .unwrap();
    let health = trusting
        .get(format!("{}/health", running.base))
        .send()
        .await
        .expect("HTTPS request");
    assert_eq!(health.status(), 200);
    // Plain HTTP on the TLS port gets no HTTP answer.
    let plain = reqwest::get(format!(
        "{}/health",
        running.base.replacen("https", "http", 1)
    ))
    .await;
    assert!(plain.is_err(), "plain HTTP answered: {plain:?}");
}

#[test]
fn serve_with_an_unreadable_tls_key_says_so_and_exits() {
    let data = tempfile::tempdir().expect("data dir");
    let (cert_pem, _) = self_signed_localhost();
    let cert = data.path().join("cert.pem");
    std::fs::write(&cert, cert_pem).expect("cert file");
    let output = common::courier_serve(&data.path().join("store"))
        .arg("--tls-cert")
        .arg(&cert)
        .arg("--tls-key")
        .arg(data.path().join("missing.pem"))
        .stderr(Stdio::piped())
        .output()
        .expect("courier runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot read a private key from"),
        "{stderr}"
    );
}
