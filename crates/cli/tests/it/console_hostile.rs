//! The console's login against a hostile client, on the real `courier` binary: a `next` that
//! would break the redirect or leave the console, a huge form, and guessing at full speed.

use crate::common;

use common::Courier;
use courier_service::signin::FAILURE_ALLOWANCE;
use reqwest::StatusCode;
use std::process::Stdio;

const TOKEN: &str = "console-hostile-service-token";
const CUSTOMER: &str = "hostile@courier.dev";
const KEY: &str = "console-hostile-management-key";
const ADMIN: &str = "console-hostile-admin-token";

fn serve(data: &std::path::Path, stderr: Stdio) -> Courier {
    common::serve_as(data, [TOKEN, CUSTOMER, KEY, ADMIN], "info", stderr)
}

/// A client that shows redirects instead of following them.
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

#[tokio::test]
async fn a_next_with_control_characters_or_dot_segments_falls_back_to_the_dlq_page() {
    let data = tempfile::tempdir().expect("tempdir");
    let running = serve(data.path(), Stdio::null());
    let http = client();
    // Raw form bodies, so each spelling reaches the service exactly as written.
    for next in [
        "%2Fconsole%2F%0a",
        "%2Fconsole%2F%00",
        "%2Fconsole%2F%7f",
        "%2Fconsole%2F%0d%0aSet-Cookie%3A%20x%3Dy",
        "%2Fconsole%2F%0d",
        "%2Fconsole%2F..%2F..%2Fadmin%2Fv1%2Faccount",
        "%2Fconsole%2F.%2Fdlq",
        "%2Fconsole%2F%252e%252e%2Fadmin",
        "%2Fconsole%2F.%252E%2Fadmin",
        "%2Fconsole%2Fdlq%2F..",
    ] {
        let response = http
            .post(format!("{}/console/login", running.management))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("username={CUSTOMER}&password={KEY}&next={next}"))
            .send()
            .await
            .expect("login");
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "next={next}");
        assert_eq!(
            response.headers()["location"].to_str().expect("ascii"),
            "/console/dlq",
            "next={next}"
        );
    }
    let kept = http
        .post(format!("{}/console/login", running.management))
        .form(&[
            ("username", CUSTOMER),
            ("password", KEY),
            ("next", "/console/stats?period=1h"),
        ])
        .send()
        .await
        .expect("login");
    assert_eq!(kept.headers()["location"], "/console/stats?period=1h");
}

#[tokio::test]
async fn a_login_form_beyond_the_form_limit_is_refused_and_not_echoed() {
    let data = tempfile::tempdir().expect("tempdir");
    let running = serve(data.path(), Stdio::null());
    let huge_name = "n".repeat(5_000_000);
    let response = client()
        .post(format!("{}/console/login", running.management))
        .form(&[
            ("username", huge_name.as_str()),
            ("password", "wrong-password"),
        ])
        .send()
        .await
        .expect("login");
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let page = response.text().await.expect("page");
    assert!(
        page.len() < 100_000,
        "the name is not echoed: {} bytes",
        page.len()
    );
}

#[tokio::test]
async fn failed_sign_ins_past_the_allowance_are_answered_429_for_every_credential_and_logged() {
    let data = tempfile::tempdir().expect("tempdir");
    let log = tempfile::NamedTempFile::new().expect("log file");
    let running = serve(data.path(), Stdio::from(log.reopen().expect("log")));
    let http = client();
    let base = &running.management;
    let wrong_login = || {
        http.post(format!("{base}/console/login")).form(&[
            ("username", CUSTOMER),
            ("password", "wrong-guess-of-the-key"),
        ])
    };
    // The allowance costs nothing; the failure after it is still compared, and closes.
    for n in 0..=FAILURE_ALLOWANCE {
        let response = wrong_login().send().await.expect("login");
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "failure {n}");
    }
    let started = std::time::Instant::now();
    let refused = wrong_login().send().await.expect("login");
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    // From now on nothing is compared: not even the right key gets in.
    let right = http
        .post(format!("{base}/console/login"))
        .form(&[("username", CUSTOMER), ("password", KEY)])
        .send()
        .await
        .expect("login");
    assert_eq!(
        right.status(),
        StatusCode::TOO_MANY_REQUESTS,
        "the right key waits too"
    );
    let retry_after: u64 = right.headers()["retry-after"]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("seconds");
    assert!((1..=2).contains(&retry_after), "{retry_after}");
    for (what, request) in [
        (
            "service token",
            http.get(format!("{base}/v2/workflows/dlq"))
                .bearer_auth("wrong-token-guess-0001"),
        ),
        (
            "management key",
            http.get(format!("{base}/v2/svc/stats"))
                .basic_auth(CUSTOMER, Some("wrong-key")),
        ),
        (
            "admin token",
            http.patch(format!("{base}/admin/v1/account"))
                .bearer_auth("wrong-admin-guess-01"),
        ),
    ] {
        let response = request.send().await.expect(what);
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS, "{what}");
        assert!(response.headers().contains_key("retry-after"), "{what}");
        let body: serde_json::Value = response.json().await.expect("JSON");
        assert!(
            body["error"]
                .as_str()
                .unwrap_or_default()
                .contains("failed sign-ins"),
            "{what}: {body}"
        );
    }
    // A request without credentials is no sign-in: still the plain 401.
    let anonymous = http
        .get(format!("{base}/v2/workflows/dlq"))
        .send()
        .await
        .expect("anonymous");
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    // The backoff passes: after Retry-After the right key works again.
    let wait = std::time::Duration::from_secs(retry_after);
    tokio::time::sleep(wait.saturating_sub(started.elapsed())).await;
    let mut signed_in = false;
    for _ in 0..20 {
        let response = http
            .get(format!("{base}/v2/svc/stats"))
            .basic_auth(CUSTOMER, Some(KEY))
            .send()
            .await
            .expect("stats");
        if response.status() == StatusCode::OK {
            signed_in = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert!(signed_in, "the right key works once the backoff has passed");
    drop(running);
    let log = std::fs::read_to_string(log.path()).expect("log");
    let failures: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("sign-in failed"))
        .collect();
    assert!(
        failures.len() as u32 >= FAILURE_ALLOWANCE,
        "{} logged",
        failures.len()
    );
    assert!(
        failures
            .iter()
            .all(|line| line.contains("127.0.0.1") && line.contains("INFO")),
        "{:?}",
        failures.first()
    );
    assert!(failures.iter().any(|line| line.contains("console login")));
    assert!(
        !log.contains("wrong-guess-of-the-key"),
        "no secret in the log"
    );
}

/// A client whose connections leave from `address` (any of `127.0.0.0/8` reaches the service on
/// 127.0.0.1 on Linux).
fn client_from(address: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(address.parse::<std::net::IpAddr>().expect("an address"))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

#[tokio::test]
async fn every_loopback_address_is_one_source_for_the_sign_in_backoff() {
    let data = tempfile::tempdir().expect("tempdir");
    // The management interface on ::1, the rest on 127.0.0.1: one guard for both.
    let running = Courier::spawn(
        common::courier_serve(data.path())
            .args(common::credentials([TOKEN, CUSTOMER, KEY, ADMIN]))
            .args(["--management-listen", "[::1]:0"])
            .env("RUST_LOG", "warn")
            .stderr(Stdio::null()),
    );
    let list = |http: &reqwest::Client, token: &str| {
        http.get(format!("{}/v2/workflows/dlq", running.base))
            .bearer_auth(token.to_owned())
            .send()
    };
    let first = client_from("127.0.0.1");
    for n in 0..=FAILURE_ALLOWANCE {
        let response = list(&first, "wrong-token-guess-0001").await.expect("list");
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "failure {n}");
    }
    assert_eq!(
        list(&first, "wrong-token-guess-0002")
            .await
            .expect("list")
            .status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    // Another loopback address is the same machine: no fresh allowance, not even one guess.
    for address in ["127.0.0.2", "127.0.0.3", "127.5.6.7"] {
        let response = list(&client_from(address), "wrong-token-guess-0003")
            .await
            .expect("list");
        assert_eq!(
            response.status(),
            StatusCode::TOO_MANY_REQUESTS,
            "{address}"
        );
        let body: serde_json::Value = response.json().await.expect("JSON");
        assert!(
            body["error"]
                .as_str()
                .unwrap_or_default()
                .contains("failed sign-ins"),
            "{address}: {body}"
        );
        // Closed means closed: the right token is not compared either.
        let right = list(&client_from(address), TOKEN).await.expect("list");
        assert_eq!(right.status(), StatusCode::TOO_MANY_REQUESTS, "{address}");
    }
    // ::1 is loopback too, on the other listener.
    assert!(
        running.management.contains("[::1]"),
        "{}",
        running.management
    );
    let basic = reqwest::Client::new()
        .get(format!("{}/v2/svc/stats", running.management))
        .basic_auth(CUSTOMER, Some("wrong-key"))
        .send()
        .await
        .expect("stats");
    assert_eq!(basic.status(), StatusCode::TOO_MANY_REQUESTS, "::1");
}

/// Whether `answer` holds an HTTP response's head and as much body as its `content-length` says.
fn answer_complete(answer: &[u8]) -> bool {
    let text = String::from_utf8_lossy(answer);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    head.lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .is_some_and(|length| body.len() >= length)
}

#[tokio::test]
async fn a_login_body_beyond_the_form_limit_is_refused_while_it_arrives() {
    use std::io::{Read as _, Write as _};
    let data = tempfile::tempdir().expect("tempdir");
    let running = serve(data.path(), Stdio::null());
    let address = running.management.trim_start_matches("http://").to_owned();
    // Just under the interfaces' 16 MiB, so only the form's own limit can refuse it.
    const DECLARED: usize = 16 * 1024 * 1024 - 1024;
    const CHUNK: usize = 16 * 1024;
    for chunked in [false, true] {
        let mut stream = std::net::TcpStream::connect(&address).expect("connect");
        let framing = match chunked {
            false => format!("Content-Length: {DECLARED}"),
            true => "Transfer-Encoding: chunked".to_owned(),
        };
        let head = format!(
            "POST /console/login HTTP/1.1\r\nHost: courier\r\n\
             Content-Type: application/x-www-form-urlencoded\r\n{framing}\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).expect("headers");
        // The answer, read on its own thread while the body goes out at about 16 MB/s.
        let answered = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let reader = {
            let mut stream = stream.try_clone().expect("clone");
            let answered = answered.clone();
            std::thread::spawn(move || {
                let mut first = [0u8; 1];
                let mut answer = Vec::new();
                if stream.read(&mut first).unwrap_or(0) == 1 {
                    answered.store(true, std::sync::atomic::Ordering::SeqCst);
                    answer.push(first[0]);
                    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
                    // To the end of the answer: the service may go on reading (and throwing
                    // away) the body after it, so the connection stays open.
                    let mut buffer = [0u8; 4096];
                    while !answer_complete(&answer) {
                        match stream.read(&mut buffer) {
                            Ok(0) | Err(_) => break,
                            Ok(read) => answer.extend_from_slice(&buffer[..read]),
                        }
                    }
                }
                String::from_utf8_lossy(&answer).into_owned()
            })
        };
        let mut sent = 0;
        let chunk = vec![b'n'; CHUNK];
        while sent < DECLARED && !answered.load(std::sync::atomic::Ordering::SeqCst) {
            let written = match chunked {
                false => stream.write_all(&chunk),
                true => stream
                    .write_all(format!("{CHUNK:x}\r\n").as_bytes())
                    .and_then(|()| stream.write_all(&chunk))
                    .and_then(|()| stream.write_all(b"\r\n")),
            };
            if written.is_err() {
                break;
            }
            sent += CHUNK;
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        if chunked && sent >= DECLARED {
            let _ = stream.write_all(b"0\r\n\r\n");
        }
        let answer = reader.join().expect("reader");
        eprintln!("chunked: {chunked}: {sent} bytes sent before the answer");
        assert!(
            answer.starts_with("HTTP/1.1 413"),
            "chunked: {chunked}: {}",
            answer.lines().next().unwrap_or_default()
        );
        assert!(answer.contains("at most 16384 bytes"), "{answer}");
        assert!(
            sent <= 4 * 1024 * 1024,
            "chunked: {chunked}: {sent} bytes were sent before the answer: the body was read \
             to its end, not refused as it arrived"
        );
    }
}
