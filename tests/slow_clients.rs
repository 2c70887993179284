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
