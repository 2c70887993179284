//! `courier dlq list` and `courier verify` as processes against a hostile server on a local socket: an answer of
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
    /// A whole 404 whose body carries a terminal's escape sequences and a NUL, raw.
    Escapes,
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
    if let Hostile::Escapes = hostile {
        // Raw bytes, no JSON: a terminal's clear-screen and title sequences, BEL and NUL.
        let body = "\u{1b}[2J\u{1b}]0;owned\u{7}\u{0} boom";
        let _ = write!(
            stream,
            "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        return;
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
        Hostile::Escapes => return,
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

/// `courier verify` against `base` with `args`, watched as `dlq list` is: exit, stderr, stdout,
/// time and peak resident size.
fn verify(base: &str, args: &[&str]) -> (Option<i32>, String, String, Duration, u64) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_courier"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("COURIER_") {
            command.env_remove(name);
        }
    }
    let config = tempfile::tempdir().expect("tempdir");
    command
        .args(["verify", "--base-url", base])
        .args(args)
        .env("COURIER_SERVICE_TOKEN", "hostile-answers-token")
        .env("COURIER_CUSTOMER_ID", "hostile@example.com")
        .env("COURIER_MANAGEMENT_KEY", "hostile-answers-key")
        .env("XDG_CONFIG_HOME", config.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let child = command.spawn().expect("courier verify starts");
    let pid = child.id();
    let sampler = std::thread::spawn(move || {
        let mut peak = 0;
        while let Some(now) = peak_resident(pid) {
            peak = peak.max(now);
            std::thread::sleep(Duration::from_millis(10));
        }
        peak
    });
    let output = child.wait_with_output().expect("courier verify ends");
    let elapsed = started.elapsed();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        elapsed,
        sampler.join().expect("sampler"),
    )
}

/// The finding: a 1 GB answer took `verify` to 19 GB resident, an endless one aborted it, and
/// a byte a second kept `--timeout 5` busy for minutes. Each answer is now read up to the cap
/// within the request's timeout, and after three requests in a row without an answer the run
/// stops sending: it ends at once with exit 6 and the cause, in bounded memory.
#[test]
fn verify_ends_a_huge_endless_or_trickled_answer_within_its_cap_and_deadline() {
    for (hostile, at_most) in [
        (Hostile::Huge, Duration::from_secs(20)),
        (Hostile::Endless, Duration::from_secs(20)),
        (Hostile::Trickled, Duration::from_secs(20)),
    ] {
        let (code, stderr, _, elapsed, peak) = verify(&serve(hostile), &["--timeout", "2"]);
        eprintln!(
            "verify: exit {code:?} after {elapsed:?}, peak resident {} MiB: {}",
            peak >> 20,
            stderr.trim()
        );
        assert_eq!(code, Some(6), "{stderr}");
        assert!(stderr.contains("got an answer"), "{stderr}");
        assert!(elapsed < at_most, "{elapsed:?}");
        assert!(peak < 200 << 20, "peak resident {} MiB", peak >> 20);
    }
}

/// The finding: `verify`'s table printed a server's bytes raw (escape sequences reached the
/// terminal) and its JUnit XML broke on NUL and ESC. Both now write them escaped.
#[test]
fn a_servers_control_characters_never_reach_verifys_table_or_xml_raw() {
    let base = serve(Hostile::Escapes);
    for format in ["table", "junit"] {
        let (code, stderr, stdout, _, _) =
            verify(&base, &["--format", format, "--allow-inconclusive"]);
        assert_eq!(code, Some(1), "every scenario fails: {stderr}");
        assert!(
            stdout.contains("boom") && !stdout.contains('\u{1b}') && !stdout.contains('\0'),
            "{format}: {stdout:?}"
        );
        assert!(
            stdout.contains("\\u{1b}"),
            "{format} shows the escape, escaped"
        );
    }
}
