//! Connections against the real `courier` binary: a client that never reads its answers is
//! closed once a write has made no progress for the write timeout, and the connections held in
//! total and per client address are capped below the descriptor limit, so `GET /health` keeps
//! answering and memory stays bounded however many connections strangers open.

mod common;
mod measure;

use common::Courier;
use measure::{Peak, growth_mib, memory, open_descriptors, own_descriptor_limit};
use std::net::{Ipv4Addr, SocketAddr};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a write may make no progress (`courier_service::connections::WRITE_STALL_TIMEOUT`).
const WRITE_STALL: Duration = Duration::from_secs(10);

fn serve(
    data: &std::path::Path,
    log: &tempfile::NamedTempFile,
    descriptors: Option<u32>,
) -> Courier {
    let mut command = common::courier_serve(data);
    command
        .args(common::credentials([
            "connection-limits-service-token",
            "limits@courier.dev",
            "connection-limits-management-key",
            "connection-limits-admin-token",
        ]))
        .env("RUST_LOG", "info");
    let mut command = match descriptors {
        None => command,
        Some(limit) => with_descriptor_limit(&command, limit),
    };
    Courier::spawn(command.stderr(Stdio::from(log.reopen().expect("log"))))
}

/// `command` run through `sh` with its soft and hard limit of open descriptors set to `limit`
/// (`exec`, so the process is the same).
fn with_descriptor_limit(command: &Command, limit: u32) -> Command {
    let mut limited = Command::new("sh");
    limited
        .arg("-c")
        .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
        .arg(command.get_program())
        .args(command.get_args())
        .stdout(Stdio::piped());
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => limited.env(name, value),
            None => limited.env_remove(name),
        };
    }
    limited
}

fn server_address(courier: &Courier) -> SocketAddr {
    courier
        .base
        .trim_start_matches("http://")
        .parse()
        .expect("socket address")
}

/// A connection from `local` with a 4 KiB receive buffer that sends `requests` pipelined
/// requests for the 100 KB spec and never reads; `None` when the service closed it at once.
async fn never_reader(
    server: SocketAddr,
    local: Ipv4Addr,
    requests: usize,
) -> Option<std::net::TcpStream> {
    use std::io::Write as _;
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket.set_recv_buffer_size(4096).expect("receive buffer");
    socket
        .bind(SocketAddr::new(local.into(), 0))
        .expect("bind a loopback address");
    let stream = socket.connect(server).await.ok()?.into_std().expect("std");
    stream.set_nonblocking(false).expect("blocking");
    let mut writer = &stream;
    let pipelined = "GET /openapi.json HTTP/1.1\r\nHost: courier\r\n\r\n".repeat(requests);
    writer.write_all(pipelined.as_bytes()).ok()?;
    Some(stream)
}

/// `GET /health` from `local`: the status, or why there was none within 3 s.
async fn health_from(server: SocketAddr, local: Ipv4Addr) -> Result<u16, String> {
    let client = reqwest::Client::builder()
        .local_address(std::net::IpAddr::V4(local))
        .timeout(Duration::from_secs(3))
        .build()
        .expect("client");
    client
        .get(format!("http://{server}/health"))
        .send()
        .await
        .map(|response| response.status().as_u16())
        .map_err(|error| format!("{error:?}"))
}

/// How many connections this test may open and hold itself: 1,000, or fewer when the test's
/// own descriptor limit would not allow that beside the other test running at the same time.
fn connections_to_open() -> usize {
    let wanted = 1000;
    let affordable = own_descriptor_limit().saturating_sub(200) / 2;
    if affordable < wanted {
        eprintln!(
            "this process may open {} descriptors: {affordable} connections instead of {wanted}",
            own_descriptor_limit()
        );
    }
    wanted.min(affordable)
}

/// The finding: 1,000 anonymous connections pipelining requests with a tiny receive window
/// stayed open past 120 s. Each is now closed once a write of its answers has made no progress
/// for the write timeout; meanwhile others are served and memory stays bounded.
#[tokio::test(flavor = "multi_thread")]
async fn clients_that_never_read_are_closed_once_their_writes_stall() {
    let data = tempfile::tempdir().expect("tempdir");
    let log = tempfile::NamedTempFile::new().expect("log");
    let running = serve(data.path(), &log, None);
    let server = server_address(&running);
    let pid = running.child.id();
    assert_eq!(
        health_from(server, Ipv4Addr::new(127, 0, 0, 9)).await,
        Ok(200)
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = memory(pid);
    let descriptors_before = open_descriptors(pid);
    let peak = Peak::sample(pid);
    let count = connections_to_open();
    // From eight addresses, under the per-address cap (128), so every one is served.
    let mut held = Vec::new();
    for n in 0..count {
        let local = Ipv4Addr::new(127, 0, 0, 1 + (n % 8) as u8);
        if let Some(stream) = never_reader(server, local, 30).await {
            held.push(stream);
        }
    }
    let opened = Instant::now();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let descriptors_held = open_descriptors(pid);
    let stalled = memory(pid);
    assert!(
        descriptors_held >= descriptors_before + count * 9 / 10,
        "the service holds {descriptors_held} descriptors (before: {descriptors_before}) for {count} connections"
    );
    assert_eq!(
        health_from(server, Ipv4Addr::new(127, 0, 0, 9)).await,
        Ok(200)
    );
    // Closed at the write timeout after their writes stalled, not held on.
    let deadline = opened + WRITE_STALL + Duration::from_secs(10);
    let closed_after = loop {
        let open = open_descriptors(pid);
        if open <= descriptors_before + 10 {
            break opened.elapsed();
        }
        assert!(
            Instant::now() < deadline,
            "{} s after the last connection opened, the service still holds {open} descriptors \
             (before: {descriptors_before}) for clients that read nothing",
            opened.elapsed().as_secs()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let peak = peak.stop();
    let (stalled_rss, stalled_anon) = growth_mib(before, stalled);
    let (peak_rss, peak_anon) = growth_mib(before, peak);
    eprintln!(
        "{count} never-reading connections: before {before}; while stalled {stalled} \
         (+{stalled_rss:.1} / +{stalled_anon:.1} MiB); peak {peak} (+{peak_rss:.1} / \
         +{peak_anon:.1} MiB); all closed {closed_after:?} after the last one opened"
    );
    // A stalled connection holds its buffers (a read buffer of 8 KiB, the answer's head; the
    // spec's body is shared) and its task: well under 64 KiB each.
    let bound = count as f64 * 64.0 / 1024.0;
    assert!(
        peak_anon < bound,
        "{peak_anon:.1} MiB for {count} stalled connections (bound {bound:.1} MiB)"
    );
    assert!(
        closed_after >= WRITE_STALL.saturating_sub(Duration::from_secs(2)),
        "closed after {closed_after:?}, before any write could have stalled for {WRITE_STALL:?}"
    );
    assert_eq!(
        health_from(server, Ipv4Addr::new(127, 0, 0, 9)).await,
        Ok(200)
    );
    drop(held);
    let log = std::fs::read_to_string(log.path()).expect("log");
    assert!(
        log.contains("write made no progress"),
        "the log says why connections were closed:\n{log}"
    );
}

/// The finding: with the descriptor limit at 256, 1,000 connections took every descriptor
/// ("Too many open files") and `/health` stopped answering. The service now holds at most
/// 128 connections at that limit (the limit less 128 kept for its store and listeners), 16 per
/// client address; beyond, a new connection is closed at accept and the refusal logged.
#[tokio::test(flavor = "multi_thread")]
async fn at_256_descriptors_the_connection_caps_keep_health_answering() {
    let data = tempfile::tempdir().expect("tempdir");
    let log = tempfile::NamedTempFile::new().expect("log");
    let running = serve(data.path(), &log, Some(256));
    let server = server_address(&running);
    let pid = running.child.id();
    let checker = Ipv4Addr::new(127, 0, 0, 2);
    assert_eq!(health_from(server, checker).await, Ok(200));
    let before = memory(pid);
    // One address opens as many connections as it can.
    let count = connections_to_open();
    let mut held = Vec::new();
    let started = Instant::now();
    for n in 0..count {
        if let Some(stream) = never_reader(server, Ipv4Addr::LOCALHOST, 30).await {
            held.push(stream);
        }
        if n % 100 == 99 {
            let health = health_from(server, checker).await;
            assert_eq!(
                health,
                Ok(200),
                "/health from another address after {} connections",
                n + 1
            );
        }
    }
    eprintln!(
        "{count} connections from 127.0.0.1 in {:?}",
        started.elapsed()
    );
    let descriptors = open_descriptors(pid);
    assert!(
        descriptors < 200,
        "the service holds {descriptors} descriptors"
    );
    assert_eq!(health_from(server, checker).await, Ok(200));
    drop(held);
    // Many addresses together: at most 128 connections, the rest closed at accept.
    let mut idle = Vec::new();
    for n in 0..200u8 {
        let local = Ipv4Addr::new(127, 0, 1, n / 10 + 1);
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket.bind(SocketAddr::new(local.into(), 0)).expect("bind");
        if let Ok(stream) = socket.connect(server).await {
            idle.push(stream);
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let descriptors = open_descriptors(pid);
    assert!(
        descriptors < 250,
        "the service holds {descriptors} descriptors"
    );
    drop(idle);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(health_from(server, checker).await, Ok(200));
    let after = memory(pid);
    let (rss, anon) = growth_mib(before, after);
    eprintln!("before {before}; after {after} (+{rss:.1} / +{anon:.1} MiB)");
    let log = std::fs::read_to_string(log.path()).expect("log");
    assert!(
        !log.contains("Too many open files"),
        "the service ran out of descriptors:\n{log}"
    );
    for cap in ["per client address", "in total"] {
        assert!(
            log.contains("connection closed at accept") && log.contains(cap),
            "the log names the refusal {cap}:\n{log}"
        );
    }
}

/// A request head is buffered up to 128 KiB (`courier_service::connections::MAX_HEAD_BYTES`),
/// then answered 431, so connections sending huge header blocks without credentials hold at
/// most that each, not hyper's default of about 400 KiB for the whole header deadline.
#[tokio::test(flavor = "multi_thread")]
async fn a_hundred_400_kb_header_blocks_are_refused_at_128_kib_each() {
    use std::io::{Read as _, Write as _};
    let data = tempfile::tempdir().expect("tempdir");
    let log = tempfile::NamedTempFile::new().expect("log");
    let running = serve(data.path(), &log, None);
    let server = server_address(&running);
    let pid = running.child.id();
    assert_eq!(health_from(server, Ipv4Addr::LOCALHOST).await, Ok(200));
    let before = memory(pid);
    let peak = Peak::sample(pid);
    let clients: Vec<_> = (0..100)
        .map(|_| {
            std::thread::spawn(move || {
                let mut stream = std::net::TcpStream::connect(server).expect("connect");
                let line = format!("X-Padding: {}\r\n", "p".repeat(10_000));
                let _ = stream.write_all(b"GET /health HTTP/1.1\r\nHost: courier\r\n");
                // 40 headers of 10 KB, the head never finished.
                for _ in 0..40 {
                    if stream.write_all(line.as_bytes()).is_err() {
                        break;
                    }
                }
                let _ = stream.set_read_timeout(Some(Duration::from_secs(3)));
                let mut answer = [0u8; 12];
                let status = match stream.read_exact(&mut answer) {
                    Ok(()) => String::from_utf8_lossy(&answer).into_owned(),
                    Err(error) => format!("no answer: {error}"),
                };
                (stream, status)
            })
        })
        .collect();
    let mut held = Vec::new();
    for client in clients {
        let (stream, status) = client.join().expect("client");
        assert_eq!(status, "HTTP/1.1 431", "a head over 128 KiB");
        held.push(stream);
    }
    let peak = peak.stop();
    drop(held);
    let (peak_rss, peak_anon) = growth_mib(before, peak);
    eprintln!(
        "100 heads of 400 KB: before {before}; peak {peak} (+{peak_rss:.1} / +{peak_anon:.1} MiB)"
    );
    assert!(
        peak_anon < 24.0,
        "{peak_anon:.1} MiB for 100 heads held to 128 KiB each (bound 24 MiB)"
    );
}
