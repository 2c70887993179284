//! courier-client against a hostile server on a local socket: an answer of 1 GiB, an endless
//! chunked answer and answers trickled a byte a second each end the call with an error naming
//! the limit it passed, within the cap and the deadline, and the process's memory stays bounded
//! (its peak resident size, `VmHWM` of `/proc/self/status`, stays far below one huge answer).

use courier_client::{Limits, MessagingClientBuilder, RetryPolicy, messaging};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

/// What the server does once it has read a request.
#[derive(Clone, Copy)]
enum Hostile {
    /// `Content-Length: 1 GiB`, then bytes for as long as the client reads.
    Huge,
    /// A chunked answer that never ends.
    Endless,
    /// The headers at once, then the body a byte a second.
    TrickledBody,
    /// The status line and headers a byte a second.
    TrickledHead,
}

/// A server that answers every connection as `hostile` says; counts the bytes it sent.
struct Server {
    base: String,
    sent: Arc<AtomicU64>,
    connections: Arc<AtomicU64>,
}

async fn serve(hostile: Hostile) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let sent = Arc::new(AtomicU64::new(0));
    let connections = Arc::new(AtomicU64::new(0));
    let (counter, accepted) = (sent.clone(), connections.clone());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            accepted.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(answer(stream, hostile, counter.clone()));
        }
    });
    Server {
        base,
        sent,
        connections,
    }
}

/// Reads one request's head, then answers as `hostile` says until the client goes away.
async fn answer(mut stream: TcpStream, hostile: Hostile, sent: Arc<AtomicU64>) {
    let mut head = Vec::new();
    let mut buffer = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buffer[..n]),
        }
    }
    let json_head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n";
    let (start, repeated, pause): (String, Vec<u8>, Option<Duration>) = match hostile {
        Hostile::Huge => (
            format!(
                "{json_head}content-length: {}\r\n\r\n{{\"messages\":[\"",
                1u64 << 30
            ),
            vec![b'a'; 1 << 16],
            None,
        ),
        Hostile::Endless => {
            let chunk = vec![b'a'; 1 << 16];
            let mut frame = format!("{:x}\r\n", chunk.len()).into_bytes();
            frame.extend_from_slice(&chunk);
            frame.extend_from_slice(b"\r\n");
            (
                format!("{json_head}transfer-encoding: chunked\r\n\r\n"),
                frame,
                None,
            )
        }
        Hostile::TrickledBody => (
            format!("{json_head}content-length: 100000\r\n\r\n"),
            b" ".to_vec(),
            Some(Duration::from_secs(1)),
        ),
        Hostile::TrickledHead => (String::new(), b"H".to_vec(), Some(Duration::from_secs(1))),
    };
    if stream.write_all(start.as_bytes()).await.is_err() {
        return;
    }
    sent.fetch_add(start.len() as u64, Ordering::Relaxed);
    loop {
        if stream.write_all(&repeated).await.is_err() {
            return;
        }
        sent.fetch_add(repeated.len() as u64, Ordering::Relaxed);
        if let Some(pause) = pause {
            tokio::time::sleep(pause).await;
        }
    }
}

/// The peak resident size of this process so far, in bytes (`VmHWM`).
fn peak_resident() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .expect("VmHWM");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a number of kB");
    kib * 1024
}

/// All the tests of this file together never come near one huge answer in memory.
const PEAK_BOUND: u64 = 256 << 20;

fn client(base: &str) -> MessagingClientBuilder {
    messaging::Client::builder()
        .base_url(base)
        .token("hostile-test-token")
}

#[tokio::test]
async fn a_huge_declared_answer_is_refused_before_it_is_read() {
    let server = serve(Hostile::Huge).await;
    let started = Instant::now();
    let error = client(&server.base)
        .build()
        .expect("client")
        .list_workflow_dlq()
        .send()
        .await
        .expect_err("1 GiB is past the cap");
    let message = error.to_string();
    assert!(
        message.contains("larger than the client's limit of 16 MiB")
            && message.contains("it declared 1073741824 bytes")
            && message.contains("max_response_bytes"),
        "{message}"
    );
    assert!(!error.retryable && error.status.is_none(), "{error:#?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let peak = peak_resident();
    assert!(peak < PEAK_BOUND, "peak resident size {peak} bytes");
    eprintln!(
        "huge: refused after {:?}; the server got {} bytes out; peak resident {} MiB",
        started.elapsed(),
        server.sent.load(Ordering::Relaxed),
        peak >> 20
    );
}

#[tokio::test]
async fn an_endless_chunked_answer_ends_at_the_cap() {
    let server = serve(Hostile::Endless).await;
    let started = Instant::now();
    let error = client(&server.base)
        .build()
        .expect("client")
        .list_workflow_dlq()
        .send()
        .await
        .expect_err("an endless answer is past any cap");
    let message = error.to_string();
    assert!(
        message.contains("larger than the client's limit of 16 MiB")
            && message.contains("more arrived"),
        "{message}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let peak = peak_resident();
    assert!(peak < PEAK_BOUND, "peak resident size {peak} bytes");

    // A smaller cap of the builder's ends it sooner, and names that cap.
    let error = client(&server.base)
        .max_response_bytes(64 << 10)
        .build()
        .expect("client")
        .list_workflow_dlq()
        .send()
        .await
        .expect_err("past 64 KiB");
    assert!(
        error.to_string().contains("limit of 64 KiB (65536 bytes"),
        "{error}"
    );
    eprintln!(
        "endless: ended after {:?}; peak resident {} MiB",
        started.elapsed(),
        peak >> 20
    );
}

#[tokio::test]
async fn a_body_trickled_a_byte_a_second_ends_at_the_attempts_timeout() {
    let server = serve(Hostile::TrickledBody).await;
    let started = Instant::now();
    let error = client(&server.base)
        .timeout(Duration::from_secs(2))
        .build()
        .expect("client")
        .list_workflow_dlq()
        .send()
        .await
        .expect_err("the body never ends in time");
    let elapsed = started.elapsed();
    assert!(
        error.to_string().contains("did not arrive in time"),
        "{error}"
    );
    assert!(
        elapsed >= Duration::from_secs(2) && elapsed < Duration::from_secs(4),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn a_head_trickled_a_byte_a_second_ends_at_the_calls_deadline_across_retries() {
    let server = serve(Hostile::TrickledHead).await;
    let started = Instant::now();
    // Five attempts of 2 s would take 10 s and more; the deadline ends the call at 3 s.
    let error = client(&server.base)
        .timeout(Duration::from_secs(2))
        .deadline(Duration::from_secs(3))
        .retry(RetryPolicy {
            max_attempts: 5,
            ..RetryPolicy::default()
        })
        .build()
        .expect("client")
        .list_workflow_dlq()
        .send()
        .await
        .expect_err("the head never ends in time");
    let elapsed = started.elapsed();
    assert!(error.to_string().contains("timed out"), "{error}");
    assert!(
        elapsed >= Duration::from_millis(2_900) && elapsed < Duration::from_millis(4_000),
        "{elapsed:?}"
    );
    assert_eq!(
        server.connections.load(Ordering::Relaxed),
        2,
        "a second attempt with the time left, no third"
    );
}

#[test]
fn the_defaults_are_documented_ones() {
    assert_eq!(
        Limits::default(),
        Limits {
            timeout: Duration::from_secs(30),
            deadline: Duration::from_secs(60),
            max_response_bytes: 16 << 20,
        }
    );
}

#[cfg(feature = "validate")]
#[tokio::test]
async fn a_validating_client_keeps_the_same_cap() {
    for hostile in [Hostile::Huge, Hostile::Endless] {
        let server = serve(hostile).await;
        let error = client(&server.base)
            .validate_responses(true)
            .build()
            .expect("client")
            .list_workflow_dlq()
            .send()
            .await
            .expect_err("past the cap");
        assert!(
            error
                .to_string()
                .contains("larger than the client's limit of 16 MiB"),
            "{error}"
        );
    }
    assert!(peak_resident() < PEAK_BOUND);
}
