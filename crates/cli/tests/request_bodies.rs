//! Request bodies against the real `courier` binary: no route reads a body before it has checked
//! the credentials, the interface's operations (which take none) read none at all, and the
//! bodies that are read share one budget, so the service's memory does not grow with what
//! anonymous clients send.

mod common;
mod measure;

use common::Courier;
use measure::{Memory, Peak, answer_complete, growth_mib, memory};
use std::io::{Read as _, Write as _};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

const TOKEN: &str = "request-bodies-service-token";
const CUSTOMER: &str = "bodies@courier.dev";
const KEY: &str = "request-bodies-management-key";
const ADMIN: &str = "request-bodies-admin-token";

/// Just under the interfaces' 16 MiB limit, so only what the service does with a body it need
/// not read can keep it from being read.
const LARGE: usize = 15 * 1024 * 1024;

/// The budget of request bodies held at once (`courier_service::body::BODY_BUDGET_BYTES`).
const BUDGET: usize = 64 * 1024 * 1024;

fn serve(data: &std::path::Path, stderr: Stdio) -> Courier {
    common::serve_as(data, [TOKEN, CUSTOMER, KEY, ADMIN], "info", stderr)
}

fn address(courier: &Courier) -> String {
    courier.base.trim_start_matches("http://").to_owned()
}

/// What one client saw: the answer, and how many body bytes it had sent when the answer began.
struct Exchange {
    answer: String,
    sent_before_answer: usize,
}

impl Exchange {
    fn status(&self) -> &str {
        self.answer.get(9..12).unwrap_or("none")
    }
}

/// Sends `head` (which ends with the blank line) and then `length` bytes of body (`chunked`
/// framing or as the head declares), 64 KiB at a time, one write per `pace` if given, while a
/// thread reads the answer. Stops sending when the service answers if `stop_at_answer`, else
/// when the body is out or the service closed the connection.
fn exchange(
    address: &str,
    head: &str,
    length: usize,
    chunked: bool,
    pace: Option<Duration>,
    stop_at_answer: bool,
) -> Exchange {
    const CHUNK: usize = 64 * 1024;
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream.write_all(head.as_bytes()).expect("headers");
    let answered = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicUsize::new(0));
    let sent_before_answer = Arc::new(AtomicUsize::new(usize::MAX));
    let reader = {
        let mut stream = stream.try_clone().expect("clone");
        let (answered, sent, sent_before_answer) =
            (answered.clone(), sent.clone(), sent_before_answer.clone());
        std::thread::spawn(move || {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(40)));
            let mut answer = Vec::new();
            let mut buffer = [0u8; 4096];
            while !answer_complete(&answer) {
                match stream.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(read) => {
                        if answer.is_empty() {
                            sent_before_answer.store(sent.load(Ordering::SeqCst), Ordering::SeqCst);
                            answered.store(true, Ordering::SeqCst);
                        }
                        answer.extend_from_slice(&buffer[..read]);
                    }
                }
            }
            String::from_utf8_lossy(&answer).into_owned()
        })
    };
    let chunk = vec![b'x'; CHUNK];
    let mut out = 0;
    while out < length && !(stop_at_answer && answered.load(Ordering::SeqCst)) {
        let size = CHUNK.min(length - out);
        let written = match chunked {
            false => stream.write_all(&chunk[..size]),
            true => stream
                .write_all(format!("{size:x}\r\n").as_bytes())
                .and_then(|()| stream.write_all(&chunk[..size]))
                .and_then(|()| stream.write_all(b"\r\n")),
        };
        if written.is_err() {
            break;
        }
        out += size;
        sent.store(out, Ordering::SeqCst);
        if let Some(pace) = pace {
            std::thread::sleep(pace);
        }
    }
    if chunked && out >= length {
        let _ = stream.write_all(b"0\r\n\r\n");
    }
    let answer = reader.join().expect("reader");
    Exchange {
        answer,
        sent_before_answer: sent_before_answer.load(Ordering::SeqCst),
    }
}

/// A request head declaring `Content-Length: length`.
fn head(request_line: &str, extra: &str, length: usize) -> String {
    format!("{request_line} HTTP/1.1\r\nHost: courier\r\n{extra}Content-Length: {length}\r\n\r\n")
}

/// Memory after a few requests of every kind, so that what a test measures next is growth
/// caused by its clients, not the first request's.
async fn warmed_up(running: &Courier) -> Memory {
    let http = reqwest::Client::new();
    for round in 0..3 {
        let health = http.get(format!("{}/health", running.base)).send().await;
        assert_eq!(health.expect("health").status(), 200);
        let list = http
            .get(format!("{}/v2/workflows/dlq", running.base))
            .bearer_auth(TOKEN)
            .send()
            .await;
        assert_eq!(list.expect("list").status(), 200);
        common::insert_entries(
            &http,
            &running.base,
            ADMIN,
            round * 20..round * 20 + 20,
            "warm",
        )
        .await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    memory(running.child.id())
}

/// The finding: 100 anonymous connections each sending 15 MiB took the service from 620 MB to
/// 1,571 MB, because every route read its body before it checked anything. Now none of these
/// bodies is read: `GET /health` and the interface take none, the admin API reads after its
/// token, and the login reads at most its 16 KiB form.
#[tokio::test(flavor = "multi_thread")]
async fn a_hundred_anonymous_15_mib_bodies_leave_the_services_memory_flat() {
    let data = tempfile::tempdir().expect("tempdir");
    let running = serve(data.path(), Stdio::null());
    let before = warmed_up(&running).await;
    let address = address(&running);
    let peak = Peak::sample(running.child.id());
    let clients: Vec<_> = (0..100)
        .map(|n| {
            let address = address.clone();
            std::thread::spawn(move || {
                let (request, expected, chunked) = match n % 5 {
                    0 => (head("GET /health", "", LARGE), "200", false),
                    1 => (head("DELETE /v2/workflows/dlq", "", LARGE), "401", false),
                    2 => (
                        head(
                            "POST /admin/v1/dlq",
                            "Content-Type: application/json\r\n",
                            LARGE,
                        ),
                        "401",
                        false,
                    ),
                    3 => (
                        head(
                            "POST /console/login",
                            "Content-Type: application/x-www-form-urlencoded\r\n",
                            LARGE,
                        ),
                        "413",
                        false,
                    ),
                    _ => (
                        "GET /v2/workflows/dlq HTTP/1.1\r\nHost: courier\r\nTransfer-Encoding: chunked\r\n\r\n"
                            .to_owned(),
                        "401",
                        true,
                    ),
                };
                let seen = exchange(&address, &request, LARGE, chunked, None, false);
                (request, expected, seen)
            })
        })
        .collect();
    for client in clients {
        let (request, expected, seen) = client.join().expect("client");
        assert_eq!(
            seen.status(),
            expected,
            "{}: {}",
            request.lines().next().unwrap_or_default(),
            seen.answer.lines().next().unwrap_or_default()
        );
    }
    let peak = peak.stop();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = memory(running.child.id());
    let (peak_rss, peak_anon) = growth_mib(before, peak);
    let (after_rss, after_anon) = growth_mib(before, after);
    eprintln!(
        "before: {before}; peak: {peak} (+{peak_rss:.1} / +{peak_anon:.1} MiB); \
         after: {after} (+{after_rss:.1} / +{after_anon:.1} MiB)"
    );
    // Nothing of the 1.5 GB is kept: what is left is per-connection buffers (hyper's read
    // buffer, at most about 400 KiB while a body streams in, and a login's 16 KiB form).
    assert!(
        peak_anon < 48.0,
        "the service's anonymous memory grew by {peak_anon:.1} MiB under 100 anonymous 15 MiB \
         bodies (bound 48 MiB): bodies were read"
    );
    assert!(
        after_anon < 48.0,
        "{after_anon:.1} MiB kept after the bodies"
    );
    // And the service still answers.
    let health = reqwest::get(format!("{}/health", running.base)).await;
    assert_eq!(health.expect("health").status(), 200);
}

/// An operation of the interface takes no body: one sent anyway is not read (the answer comes
/// while the body is still going out) and is no error, so clients that send an empty or small
/// body keep working, `Content-Length: 0` and keep-alive included. A route answers a client
/// without credentials before reading its body, the admin API's included.
#[tokio::test(flavor = "multi_thread")]
async fn a_route_answers_before_reading_a_body_it_does_not_take_or_whose_sender_is_unknown() {
    let data = tempfile::tempdir().expect("tempdir");
    let running = serve(data.path(), Stdio::null());
    let address = address(&running);
    let bearer = format!("Authorization: Bearer {TOKEN}\r\n");
    let wrong_admin = "Authorization: Bearer not-the-admin-token-at-all\r\n\
                       Content-Type: application/json\r\n";
    // About 16 MB/s: a service that read the body first would answer after about a second.
    let pace = Some(Duration::from_millis(4));
    let cases = [
        (head("GET /health", "", LARGE), "200"),
        (
            head(
                "DELETE /v2/workflows/dlq?dlqIds=nothing-here",
                &bearer,
                LARGE,
            ),
            "200",
        ),
        (head("GET /v2/workflows/dlq", "", LARGE), "401"),
        (head("POST /admin/v1/dlq", wrong_admin, LARGE), "401"),
        (head("GET /v2/svc/stats", "", LARGE), "401"),
    ];
    for (request, expected) in cases {
        let first = request.lines().next().unwrap_or_default().to_owned();
        let seen = tokio::task::spawn_blocking({
            let address = address.clone();
            move || exchange(&address, &request, LARGE, false, pace, true)
        })
        .await
        .expect("client");
        assert_eq!(seen.status(), expected, "{first}: {}", seen.answer);
        assert!(
            seen.answer.contains("\"error\"") || expected == "200",
            "{first}: the JSON error body: {}",
            seen.answer
        );
        assert!(
            seen.sent_before_answer <= 4 * 1024 * 1024,
            "{first}: answered only after {} bytes of its body had been sent: the body was read",
            seen.sent_before_answer
        );
    }
    // `Content-Length: 0`, a small JSON body as some clients send with a DELETE, and the
    // connection kept alive for the next request.
    let mut stream = std::net::TcpStream::connect(&address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let requests = [
        (head("DELETE /v2/dlq/no-such-entry", &bearer, 0), "404"),
        (
            format!(
                "{}{{}}",
                head(
                    "DELETE /v2/workflows/runs?workflowRunIds=wfr_none",
                    &format!("{bearer}Content-Type: application/json\r\n"),
                    2
                )
            ),
            "200",
        ),
        (head("GET /v2/workflows/dlq", &bearer, 0), "200"),
    ];
    for (request, expected) in requests {
        stream.write_all(request.as_bytes()).expect("request");
        let mut answer = Vec::new();
        let mut buffer = [0u8; 4096];
        while !answer_complete(&answer) {
            match stream.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(read) => answer.extend_from_slice(&buffer[..read]),
            }
        }
        let answer = String::from_utf8_lossy(&answer);
        assert_eq!(
            answer.get(9..12).unwrap_or("none"),
            expected,
            "{request}: {answer}"
        );
    }
}

/// The admin API reads its body after the admin token, and bodies read at once share one budget
/// ([`BUDGET`]): declared lengths are reserved before a byte is read, so the fifth 15 MiB batch
/// in flight is answered 503 at once with the JSON error and `Retry-After`, and the budget is
/// back once the batches are answered.
#[tokio::test(flavor = "multi_thread")]
async fn bodies_in_flight_share_one_budget_and_beyond_it_the_answer_is_503() {
    let data = tempfile::tempdir().expect("tempdir");
    let running = serve(data.path(), Stdio::null());
    let before = warmed_up(&running).await;
    let address = address(&running);
    let admin = format!("Authorization: Bearer {ADMIN}\r\nContent-Type: application/json\r\n");
    let fits = BUDGET / LARGE;
    let mut held = Vec::new();
    for _ in 0..fits {
        let mut stream = std::net::TcpStream::connect(&address).expect("connect");
        let expect = format!("{admin}Expect: 100-continue\r\n");
        stream
            .write_all(head("POST /admin/v1/dlq", &expect, LARGE).as_bytes())
            .expect("headers");
        // hyper asks for the body once the service starts reading it: its share is taken.
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut interim = Vec::new();
        let mut byte = [0u8; 1];
        while !interim.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
            interim.push(byte[0]);
        }
        assert!(
            interim.starts_with(b"HTTP/1.1 100"),
            "{}",
            String::from_utf8_lossy(&interim)
        );
        held.push(stream);
    }
    for (framing, length) in [("declared", LARGE), ("chunked", LARGE)] {
        let request = match framing {
            "declared" => head("POST /admin/v1/dlq", &admin, length),
            _ => format!(
                "POST /admin/v1/dlq HTTP/1.1\r\nHost: courier\r\n{admin}Transfer-Encoding: chunked\r\n\r\n"
            ),
        };
        let seen = tokio::task::spawn_blocking({
            let address = address.clone();
            move || exchange(&address, &request, length, framing == "chunked", None, true)
        })
        .await
        .expect("client");
        assert_eq!(seen.status(), "503", "{framing}: {}", seen.answer);
        assert!(
            seen.answer.to_ascii_lowercase().contains("retry-after: "),
            "{}",
            seen.answer
        );
        assert!(
            seen.answer.contains("{\"error\":\"") && seen.answer.contains("budget"),
            "{}",
            seen.answer
        );
    }
    // The batches that fit are read and answered (400: they are not JSON).
    let peak = Peak::sample(running.child.id());
    let senders: Vec<_> = held
        .into_iter()
        .map(|mut stream| {
            std::thread::spawn(move || {
                let chunk = vec![b'x'; 64 * 1024];
                for _ in 0..LARGE / chunk.len() {
                    stream.write_all(&chunk).expect("body");
                }
                stream
                    .set_read_timeout(Some(Duration::from_secs(30)))
                    .expect("timeout");
                let mut answer = [0u8; 12];
                stream.read_exact(&mut answer).expect("answer");
                String::from_utf8_lossy(&answer).into_owned()
            })
        })
        .collect();
    for sender in senders {
        assert_eq!(sender.join().expect("sender"), "HTTP/1.1 400");
    }
    let peak = peak.stop();
    let (peak_rss, peak_anon) = growth_mib(before, peak);
    eprintln!("before: {before}; peak: {peak} (+{peak_rss:.1} / +{peak_anon:.1} MiB)");
    assert!(
        peak_anon < (BUDGET / (1024 * 1024)) as f64 + 48.0,
        "{peak_anon:.1} MiB for {fits} bodies of 15 MiB within a 64 MiB budget"
    );
    // The budget is free again.
    let http = reqwest::Client::new();
    common::insert_entries(&http, &running.base, ADMIN, 100..110, "after").await;
}
