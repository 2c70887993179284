//! `courier dlq list` as a process against a hostile server on a local socket: an answer of
//! 1 GiB, an endless chunked answer and a body trickled a byte a second each end the command
//! with exit code 6 and an error naming the limit it passed, within the client's cap (16 MiB)
//! and the attempt's timeout (30 s, or `--timeout`), while the process's peak resident size (`VmHWM` of `/proc/PID/status`,
//! sampled until it exits) stays far below one huge answer.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the server does once it has read a request.
#[derive(Clone, Copy)]
enum Hostile {
    /// `Content-Length: 1 GiB`, then bytes for as long as the client reads.
    Huge,
    /// A chunked answer that never ends.
    Endless,
    /// The headers at once, then the body a byte a second.
    Trickled,
}

/// A server answering every connection as `hostile` says, on its own threads; its base URL.
fn serve(hostile: Hostile) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream, hostile));
        }
    });
    base
}

/// Reads one request's head, then answers as `hostile` says until the client goes away.
fn answer(mut stream: TcpStream, hostile: Hostile) {
    let mut head = Vec::new();
    let mut buffer = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buffer[..n]),
        }
    }
    let json_head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n";
    let (start, repeated, pause) = match hostile {
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
                format!("{json_head}transfer-encoding: chunked\r\n\r\n{{\"messages\":[\""),
                frame,
                None,
            )
        }
        Hostile::Trickled => (
            format!("{json_head}content-length: 100000\r\n\r\n"),
            b" ".to_vec(),
            Some(Duration::from_secs(1)),
        ),
    };
    // The endless answer's opening text goes out as a chunk of its own.
    let start = match hostile {
        Hostile::Endless => {
            let (headers, body) = start.split_at(start.find("\r\n\r\n").expect("head") + 4);
            format!("{headers}{:x}\r\n{body}\r\n", body.len())
        }
        _ => start,
    };
    if stream.write_all(start.as_bytes()).is_err() {
        return;
    }
    while stream.write_all(&repeated).is_ok() {
        if let Some(pause) = pause {
            std::thread::sleep(pause);
        }
    }
}

/// `VmHWM` of the process `pid`, in bytes, while it runs.
fn peak_resident(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// How a `courier dlq list` ended.
struct Ended {
    code: Option<i32>,
    stderr: String,
    /// The bytes of stderr beyond the first 64 KiB, which were not kept.
    stderr_beyond: u64,
    elapsed: Duration,
    peak: u64,
}

/// `courier dlq list` against `base` with `env` added, watched until it exits (killed after
/// `at_most`).
fn dlq_list(base: &str, env: &[(&str, &str)], extra: &[&str], at_most: Duration) -> Ended {
    let config = tempfile::tempdir().expect("tempdir");
    let mut command = Command::new(env!("CARGO_BIN_EXE_courier"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") {
            command.env_remove(name);
        }
    }
    command
        .args(["dlq", "list", "--base-url", base, "-o", "json"])
        .args(extra)
        .env("COURIER_SERVICE_TOKEN", "hostile-answers-token")
        .env("XDG_CONFIG_HOME", config.path())
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().expect("courier starts");
    let mut stderr = child.stderr.take().expect("piped");
    // Read as it comes, so a long message cannot block the process on a full pipe.
    let reader = std::thread::spawn(move || {
        let (mut kept, mut beyond) = (Vec::new(), 0u64);
        let mut buffer = [0u8; 1 << 16];
        while let Ok(n) = stderr.read(&mut buffer) {
            if n == 0 {
                break;
            }
            let room = (64usize << 10).saturating_sub(kept.len()).min(n);
            kept.extend_from_slice(&buffer[..room]);
            beyond += (n - room) as u64;
        }
        (String::from_utf8_lossy(&kept).into_owned(), beyond)
    });
    let mut peak = 0;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        peak = peak.max(peak_resident(child.id()).unwrap_or(0));
        if started.elapsed() > at_most {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "courier dlq list still ran after {at_most:?}; peak resident {} MiB",
                peak >> 20
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = started.elapsed();
    let (stderr, stderr_beyond) = reader.join().expect("stderr");
    Ended {
        code: status.code(),
        stderr,
        stderr_beyond,
        elapsed,
        peak,
    }
}

/// Far below one huge answer, well above what reading 16 MiB and the binary itself take.
const PEAK_BOUND: u64 = 200 << 20;

/// Exit code 6: the service failed or could not be reached properly (`client/exit.rs`).
const UNAVAILABLE: Option<i32> = Some(6);

#[test]
fn a_huge_or_endless_answer_ends_dlq_list_at_the_cap_with_exit_6() {
    for (hostile, what, says) in [
        (Hostile::Huge, "huge", "it declared 1073741824 bytes"),
        (Hostile::Endless, "endless", "more arrived"),
    ] {
        let ended = dlq_list(&serve(hostile), &[], &[], Duration::from_secs(60));
        eprintln!(
            "{what}: exit {:?} after {:?}, peak resident {} MiB: {}",
            ended.code,
            ended.elapsed,
            ended.peak >> 20,
            ended.stderr.trim()
        );
        assert_eq!(ended.code, UNAVAILABLE, "{what}: {}", ended.stderr);
        assert!(
            ended
                .stderr
                .contains("larger than the client's limit of 16 MiB")
                && ended.stderr.contains(says)
                && ended.stderr.contains("COURIER_MAX_RESPONSE_BYTES"),
            "{what}: names the limit and the way out: {}",
            ended.stderr
        );
        assert!(
            ended.stderr.len() < 2048 && ended.stderr_beyond == 0,
            "{what}: one short line"
        );
        assert!(
            ended.elapsed < Duration::from_secs(10),
            "{what}: {:?}",
            ended.elapsed
        );
        assert!(ended.peak < PEAK_BOUND, "{what}: peak {} bytes", ended.peak);
    }
}

#[test]
fn the_cap_comes_from_the_environment_for_the_command() {
    let ended = dlq_list(
        &serve(Hostile::Endless),
        &[("COURIER_MAX_RESPONSE_BYTES", "64KiB")],
        &[],
        Duration::from_secs(60),
    );
    assert_eq!(ended.code, UNAVAILABLE, "{}", ended.stderr);
    assert!(
        ended.stderr.contains("limit of 64 KiB (65536 bytes"),
        "{}",
        ended.stderr
    );
    let ended = dlq_list(
        &serve(Hostile::Endless),
        &[("COURIER_MAX_RESPONSE_BYTES", "lots")],
        &[],
        Duration::from_secs(60),
    );
    assert_eq!(ended.code, Some(2), "a usage error: {}", ended.stderr);
    assert!(
        ended.stderr.contains("COURIER_MAX_RESPONSE_BYTES") && ended.stderr.contains("`lots`"),
        "{}",
        ended.stderr
    );
}

#[test]
fn a_body_trickled_a_byte_a_second_ends_dlq_list_at_the_timeout_with_exit_6() {
    // `--timeout 3` for the attempt: the same bound as the client's 30 s, ten times sooner.
    let ended = dlq_list(
        &serve(Hostile::Trickled),
        &[],
        &["--timeout", "3"],
        Duration::from_secs(30),
    );
    eprintln!(
        "trickled: exit {:?} after {:?}, peak resident {} MiB: {}",
        ended.code,
        ended.elapsed,
        ended.peak >> 20,
        ended.stderr.trim()
    );
    assert_eq!(ended.code, UNAVAILABLE, "{}", ended.stderr);
    assert!(
        ended.stderr.contains("did not arrive in time"),
        "{}",
        ended.stderr
    );
    assert!(
        ended.elapsed >= Duration::from_secs(3) && ended.elapsed < Duration::from_secs(10),
        "the attempt's 3 s: {:?}",
        ended.elapsed
    );
}
