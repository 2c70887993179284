//! courier-client over HTTPS against the real service (`serve` with TLS), with a throwaway CA
//! made by rcgen: trusted through the builder, through `SSL_CERT_FILE`, through the region URL
//! template; and the failures a newcomer meets, one line each and not retried.

use crate::common;

use common::{fails, ok};
use courier_client::models::StatsPeriod;
use courier_client::{CourierError, DlqFilter, Region, RetryPolicy, management, messaging};
use courier_service::testing::TestService;
use futures::TryStreamExt;
use serde_json::json;
use std::error::Error as _;
use std::process::Command;
use std::time::{Duration, Instant};

/// A CA and a server certificate it signed, for `127.0.0.1`, `localhost` and the region hosts
/// of `REGION_TEMPLATE`.
struct ThrowawayPki {
    ca_pem: String,
    cert_pem: String,
    key_pem: String,
}

const REGION_TEMPLATE_HOST: &str = "courier.test";

fn throwaway_pki() -> ThrowawayPki {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().expect("CA key");
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "courier throwaway test CA");
    let ca_cert = ca_params.self_signed(&ca_key).expect("CA certificate");
    let issuer = Issuer::new(ca_params, ca_key);
    let names = vec![
        "127.0.0.1".to_owned(),
        "localhost".to_owned(),
        format!("eu-central-1.{REGION_TEMPLATE_HOST}"),
        format!("us-east-1.{REGION_TEMPLATE_HOST}"),
    ];
    let leaf_key = KeyPair::generate().expect("server key");
    let leaf = CertificateParams::new(names)
        .expect("server params")
        .signed_by(&leaf_key, &issuer)
        .expect("server certificate");
    ThrowawayPki {
        ca_pem: ca_cert.pem(),
        cert_pem: leaf.pem(),
        key_pem: leaf_key.serialize_pem(),
    }
}

async fn https_service(pki: &ThrowawayPki) -> TestService {
    let tls = courier_service::tls::from_pem(pki.cert_pem.as_bytes(), pki.key_pem.as_bytes())
        .expect("server TLS configuration");
    TestService::start_https(tls, pki.ca_pem.as_bytes()).await
}

fn failed_run(i: usize) -> serde_json::Value {
    json!({
        "messageId": format!("msg_{i}"),
        "url": "https://billing.example/wf",
        "method": "POST",
        "header": {"Content-Type": ["application/json"]},
        "body": format!("{{\"n\":{i}}}"),
        "maxRetries": 3,
        "workflowRunId": format!("wfr_{i}"),
        "workflowUrl": "https://billing.example/wf",
        "workflowCreatedAt": 1_700_000_000_000i64,
        "label": "billing",
        "responseStatus": 500,
    })
}

/// Lists, gets, deletes and reads statistics: the path of the "done when".
async fn exercise(messaging: &messaging::Client, management: &management::Client) {
    let runs: Vec<_> = messaging
        .dlq_stream(DlqFilter::new().label("billing"))
        .try_collect()
        .await
        .expect("list over HTTPS");
    assert_eq!(runs.len(), 3);
    let one = ok(
        "get over HTTPS",
        messaging.get_workflow_dlq().dlq_id(&runs[0].dlq_id).send(),
    )
    .await;
    assert_eq!(one.workflow_run_id, runs[0].workflow_run_id);
    ok(
        "delete over HTTPS",
        messaging
            .delete_dlq_message()
            .dlq_id(&runs[0].dlq_id)
            .send(),
    )
    .await;
    let gone = fails(
        "deleted",
        messaging.get_workflow_dlq().dlq_id(&runs[0].dlq_id).send(),
    )
    .await;
    assert!(gone.is_not_found(), "{gone}");
    let stats = ok(
        "statistics over HTTPS",
        management
            .get_account_stats()
            .period(StatsPeriod::OneDay)
            .send(),
    )
    .await;
    assert_eq!(stats.dlq_message_count, 2, "{stats:?}");
}

#[tokio::test]
async fn the_client_lists_gets_deletes_and_reads_stats_over_https_with_an_added_root() {
    let pki = throwaway_pki();
    let service = https_service(&pki).await;
    assert!(service.base_url().starts_with("https://127.0.0.1:"));
    service
        .insert_dlq(&[failed_run(1), failed_run(2), failed_run(3)])
        .await;
    let messaging = messaging::Client::builder()
        .base_url(service.base_url())
        .token(&service.service_token)
        .add_root_certificate_pem(pki.ca_pem.clone())
        .build()
        .expect("client");
    let management = management::Client::builder()
        .base_url(service.base_url())
        .credentials(&service.customer_id, &service.management_key)
        .add_root_certificate_pem(pki.ca_pem.clone())
        .build()
        .expect("client");
    exercise(&messaging, &management).await;
}

#[tokio::test]
async fn the_region_url_template_reaches_the_service_over_https() {
    let pki = throwaway_pki();
    let service = https_service(&pki).await;
    service.insert_dlq(&[failed_run(1)]).await;
    let host = format!("us-east-1.{REGION_TEMPLATE_HOST}");
    let address = format!("127.0.0.1:{}", service.port()).parse().unwrap();
    let client = messaging::Client::builder()
        .region_url_template(format!(
            "https://{{region}}.{REGION_TEMPLATE_HOST}:{}",
            service.port()
        ))
        .region(Region::UsEast1)
        .token(&service.service_token)
        .add_root_certificate_pem(pki.ca_pem.clone())
        // No DNS for the test domain: the name still travels in SNI and is checked against the
        // certificate.
        .resolve(&host, address)
        .build()
        .expect("client");
    let page = ok(
        "list through the region template",
        client.list_workflow_dlq().send(),
    )
    .await;
    assert_eq!(page.messages.len(), 1);
}

#[tokio::test]
async fn an_untrusted_certificate_fails_at_once_on_one_line_with_its_cause() {
    let pki = throwaway_pki();
    let service = https_service(&pki).await;
    // The platform's roots only: the throwaway CA is not among them.
    let client = messaging::Client::builder()
        .base_url(service.base_url())
        .token(&service.service_token)
        .retry(RetryPolicy {
            max_attempts: 3,
            initial_backoff: Duration::from_secs(2),
            max_backoff: Duration::from_secs(2),
            ..RetryPolicy::default()
        })
        .build()
        .expect("client");
    let started = Instant::now();

    let error: CourierError = fails("untrusted", client.list_workflow_dlq().send()).await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "a certificate error was retried ({:?})",
        started.elapsed()
    );
    assert!(!error.retryable, "{error}");
    assert_eq!(error.status, None);
    let text = error.to_string();
    assert!(!text.contains('\n'), "{text}");
    assert!(text.starts_with("could not reach the service"), "{text}");
    assert!(text.to_lowercase().contains("certificate"), "{text}");
    assert!(error.source().is_some(), "the cause chain is kept");
}

#[tokio::test]
async fn a_malformed_address_is_not_retryable_and_says_why() {
    let client = messaging::Client::with_token("htp//nowhere", "token");
    let error = fails("no such URL", client.list_workflow_dlq().send()).await;
    assert!(!error.retryable, "{error}");
    let text = error.to_string();
    assert!(text.starts_with("the request could not be built"), "{text}");
}

/// Runs as a child process of the next test, with the environment it is given: reaches the
/// service through `Client::from_env()` alone, so the only trust in the CA is `SSL_CERT_FILE`.
#[tokio::test]
#[ignore = "a child process of `ssl_cert_file_is_honoured`, not a test of its own"]
async fn child_lists_with_the_environment_only() {
    let messaging = messaging::Client::from_env().expect("configured from the environment");
    let management = management::Client::from_env().expect("configured from the environment");
    exercise(&messaging, &management).await;
}

/// Runs the child on the blocking pool (it waits for a whole test binary) with `envs`.
async fn run_child(envs: &[(&str, &str)]) -> std::process::Output {
    let envs: Vec<(String, String)> = envs
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    tokio::task::spawn_blocking(move || run_child_now(&envs))
        .await
        .expect("the child's thread")
}

fn run_child_now(envs: &[(String, String)]) -> std::process::Output {
    let mut command = Command::new(std::env::current_exe().expect("test binary"));
    // The harness names a test by its path below the crate (`https::…`).
    let name = concat!(module_path!(), "::child_lists_with_the_environment_only");
    let name = name
        .split_once("::")
        .map_or(name, |(_, below_the_crate)| below_the_crate);
    command.args(["--ignored", "--exact", name]);
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy().into_owned();
        if name.starts_with("COURIER_") || name.starts_with("SSL_CERT_") {
            command.env_remove(name);
        }
    }
    command.envs(envs.iter().map(|(name, value)| (name, value)));
    command.output().expect("the test binary runs")
}

#[tokio::test]
async fn ssl_cert_file_is_honoured() {
    let pki = throwaway_pki();
    let service = https_service(&pki).await;
    service
        .insert_dlq(&[failed_run(1), failed_run(2), failed_run(3)])
        .await;
    let dir = tempfile::tempdir().expect("temp dir");
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &pki.ca_pem).expect("CA file");
    let base = service.base_url();
    let envs = [
        ("COURIER_BASE_URL", base.as_str()),
        ("COURIER_SERVICE_TOKEN", service.service_token.as_str()),
        ("COURIER_CUSTOMER_ID", service.customer_id.as_str()),
        ("COURIER_MANAGEMENT_KEY", service.management_key.as_str()),
    ];

    let without = run_child(&envs).await;
    assert!(
        !without.status.success(),
        "without SSL_CERT_FILE the throwaway CA must not be trusted"
    );

    let ca = ca_file.to_str().expect("UTF-8 path").to_owned();
    let with = run_child(&[envs.as_slice(), &[("SSL_CERT_FILE", ca.as_str())]].concat()).await;
    assert!(
        with.status.success(),
        "with SSL_CERT_FILE the child should reach the service:\n{}\n{}",
        String::from_utf8_lossy(&with.stdout),
        String::from_utf8_lossy(&with.stderr)
    );
    assert!(
        String::from_utf8_lossy(&with.stdout).contains("1 passed"),
        "the child test ran"
    );
}
