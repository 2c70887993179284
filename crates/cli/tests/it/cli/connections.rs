//! Where the client commands connect: connection flags before or after the command group,
//! `--ca-cert` for a private CA, and what `token rotate` prints (profiles: `profiles.rs`).

use super::*;

#[tokio::test]
async fn connection_flags_work_before_and_after_the_command_group() {
    let (_data, service) = start();
    let base = service.base.as_str();
    let before = ran(&mut bare(&[
        "--base-url",
        base,
        "--service-token",
        DEMO_SERVICE_TOKEN,
        "-o",
        "json",
        "dlq",
        "list",
        "--limit",
        "2",
    ]))
    .ok();
    let after = ran(&mut bare(&[
        "dlq",
        "list",
        "--limit",
        "2",
        "--base-url",
        base,
        "--service-token",
        DEMO_SERVICE_TOKEN,
        "-o",
        "json",
    ]))
    .ok();
    assert_eq!(before.json(), after.json());
    assert_eq!(before.json()["messages"].as_array().map(Vec::len), Some(2));
    let management = ran(&mut bare(&[
        "--base-url",
        base,
        "--customer-id",
        DEMO_CUSTOMER_ID,
        "--management-key",
        DEMO_MANAGEMENT_KEY,
        "stats",
        "account",
        "-o",
        "json",
    ]))
    .ok();
    assert!(management.json()["dlq_message_count"].is_number());
    // Before `serve` they mean nothing, and clap says so.
    let serve = ran(&mut bare(&["--base-url", base, "serve"]));
    assert_eq!(serve.code, 2, "{}", serve.stderr);

    // `dlq list --help` keeps the connection flags under their own heading.
    let help = ran(&mut bare(&["dlq", "list", "--help"])).ok();
    let heading = help
        .stdout
        .find("Connection and output")
        .expect("a heading for the connection flags");
    let base_url = help.stdout.find("--base-url").expect("--base-url listed");
    let label = help.stdout.find("--label").expect("--label listed");
    assert!(label < heading && heading < base_url, "{}", help.stdout);

    // No address anywhere: the message names the flag as well as the variable.
    ran(&mut bare(&[
        "dlq",
        "list",
        "--service-token",
        DEMO_SERVICE_TOKEN,
    ]))
    .exits(2)
    .says("COURIER_BASE_URL")
    .says("--base-url");
}

#[tokio::test]
async fn token_rotate_prints_the_new_token_alone_or_as_an_export_line() {
    let (_data, service) = start();
    let rotated = run(&service, &["token", "rotate", "--yes"]).ok();
    let token = rotated.stdout.trim_end_matches('\n');
    assert_eq!(rotated.stdout.lines().count(), 1, "{}", rotated.stdout);
    assert_ne!(token, DEMO_SERVICE_TOKEN);
    let listed = ran(
        courier(&service, &["dlq", "list", "--limit", "1"]).env("COURIER_SERVICE_TOKEN", token)
    )
    .ok();
    assert_eq!(listed.ndjson().len(), 1);

    let exported = ran(courier(&service, &["token", "rotate", "--yes", "--export"])
        .env("COURIER_SERVICE_TOKEN", token))
    .ok();
    let line = exported.stdout.trim_end();
    let newest = line
        .strip_prefix("export COURIER_SERVICE_TOKEN='")
        .and_then(|rest| rest.strip_suffix('\''))
        .unwrap_or_else(|| panic!("an export line: {line}"));
    assert_ne!(newest, token);
    ran(courier(&service, &["dlq", "list", "--limit", "1"]).env("COURIER_SERVICE_TOKEN", newest))
        .ok();
}

#[tokio::test]
async fn ca_cert_trusts_a_private_certificate_and_its_absence_is_explained() {
    let data = tempfile::tempdir().expect("data dir");
    let key = rcgen::KeyPair::generate().expect("key");
    let certificate = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .expect("params")
        .self_signed(&key)
        .expect("certificate");
    let (cert, key_file) = (data.path().join("cert.pem"), data.path().join("key.pem"));
    std::fs::write(&cert, certificate.pem()).expect("cert");
    std::fs::write(&key_file, key.serialize_pem()).expect("key");
    let service = Courier::spawn(
        common::courier_serve(&data.path().join("store"))
            .args(["--demo", "--tls-cert"])
            .arg(&cert)
            .arg("--tls-key")
            .arg(&key_file)
            .env("RUST_LOG", "warn"),
    );
    let list = |extra: &[&str]| {
        let mut args = vec![
            "dlq",
            "list",
            "--limit",
            "1",
            "--retries",
            "0",
            "--base-url",
            &service.base,
            "--service-token",
            DEMO_SERVICE_TOKEN,
        ];
        args.extend_from_slice(extra);
        ran(&mut bare(&args))
    };
    list(&[]).exits(6).says("UnknownIssuer").says("--ca-cert");
    let cert = cert.to_str().expect("utf-8 path");
    assert_eq!(list(&["--ca-cert", cert]).ok().ndjson().len(), 1);
    let from_variable = ran(bare(&[
        "dlq",
        "list",
        "--limit",
        "1",
        "--base-url",
        &service.base,
        "--service-token",
        DEMO_SERVICE_TOKEN,
    ])
    .env("COURIER_CA_CERT", cert))
    .ok();
    assert_eq!(from_variable.ndjson().len(), 1);
    list(&["--ca-cert", "/no/such/ca.pem"])
        .exits(2)
        .says("/no/such/ca.pem");
}
