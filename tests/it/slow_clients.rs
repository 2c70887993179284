//! Slow clients time out without holding resources: a client that never finishes its request
//! headers (or sends nothing) is disconnected, and others are served meanwhile.

use courier_service::testing::TestService;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Reads until the server closes the connection; returns what it sent and how long it took.
async fn until_closed(mut stream: TcpStream, limit: Duration) -> (Vec<u8>, Duration) {
    let started = Instant::now();
    let mut received = Vec::new();
    let mut buffer = [0u8; 1024];
    loop {
        match tokio::time::timeout(
            limit.saturating_sub(started.elapsed()),
            stream.read(&mut buffer),
        )
        .await
        {
            Ok(Ok(0)) | Ok(Err(_)) => return (received, started.elapsed()),
            Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
            Err(_) => panic!("the server kept a slow connection open for {limit:?}"),
        }
    }
}

#[tokio::test]
async fn slow_and_silent_clients_are_disconnected_while_others_are_served() {
    let service = TestService::start().await; // header read timeout: 2 s
    let address = service.base_url().trim_start_matches("http://").to_owned();
    let mut slow = Vec::new();
    for n in 0..40 {
        let mut stream = TcpStream::connect(&address).await.expect("connect");
        if n % 2 == 0 {
            // Headers begun, never finished.
            stream
                .write_all(b"GET /v2/workflows/dlq HTTP/1.1\r\nHost: courier\r\nX-Slow: ")
                .await
                .expect("write");
        }
        slow.push(stream);
    }
    // The service answers a well-behaved client while 40 connections dawdle.
    let started = Instant::now();
    let health = reqwest::get(format!("{}/health", service.base_url()))
        .await
        .expect("health");
    assert_eq!(health.status(), 200);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );

    let waits = futures::future::join_all(
        slow.into_iter()
            .map(|stream| until_closed(stream, Duration::from_secs(8))),
    )
    .await;
    for (received, waited) in waits {
        assert!(
            waited >= Duration::from_millis(1500),
            "closed too early: {waited:?}"
        );
        let text = String::from_utf8_lossy(&received);
        assert!(
            received.is_empty() || text.starts_with("HTTP/1.1 408"),
            "unexpected answer: {text}"
        );
    }
}

/// A body trickled a byte at a time, to the admin API (the interface's operations take no body
/// and read none) and to the console's login form: answered 408 and the connection closed once
/// the body deadline (2 s in tests) has passed, not held for as long as the client keeps
/// trickling.
#[tokio::test]
async fn a_trickled_body_is_answered_408_and_closed_at_the_body_deadline() {
    let service = TestService::start().await; // body read timeout: 2 s
    let address = service.base_url().trim_start_matches("http://").to_owned();
    let admin = service.admin_token.clone();
    let requests = [
        format!(
            "POST /admin/v1/dlq HTTP/1.1\r\nHost: courier\r\nAuthorization: Bearer {admin}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
        ),
        "POST /console/login HTTP/1.1\r\nHost: courier\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n".to_owned(),
    ];
    for head in requests {
        let mut stream = TcpStream::connect(&address).await.expect("connect");
        stream.write_all(head.as_bytes()).await.expect("headers");
        let (mut reader, mut writer) = stream.into_split();
        let trickle = tokio::spawn(async move {
            for _ in 0..20 {
                if writer.write_all(b"u").await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(400)).await;
            }
        });
        let started = Instant::now();
        let mut received = Vec::new();
        let closed =
            tokio::time::timeout(Duration::from_secs(5), reader.read_to_end(&mut received));
        let _ = closed.await.expect("the connection is closed within 5 s");
        let waited = started.elapsed();
        trickle.abort();
        let text = String::from_utf8_lossy(&received);
        assert!(text.starts_with("HTTP/1.1 408"), "{head}: {text}");
        assert!(text.contains("\"error\""), "the JSON error body: {text}");
        assert!(
            waited >= Duration::from_millis(1500) && waited < Duration::from_secs(4),
            "{head}: closed after {waited:?}"
        );
    }
}
